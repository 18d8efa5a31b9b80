"""Layer 4, the client's side: :class:`Client`, what it answers when the server asks
(:mod:`~minimcp.client.answers`, lesson 09), and the one place it meets a cable (:mod:`~minimcp.client.connect`)."""

from minimcp.client.answers import ClientAnswers, Refused
from minimcp.client.client import Client
from minimcp.client.connect import CLIENT_OPTIONS, connected, http_client, stdio_client, websocket_client

__all__ = ["CLIENT_OPTIONS", "Client", "ClientAnswers", "Refused", "connected", "http_client", "stdio_client",
           "websocket_client"]
