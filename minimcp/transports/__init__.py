"""Layer 2, the transports: cables that move whole messages, and know nothing of MCP's features.

stdio (:mod:`.framing`, :mod:`.stdio`, :mod:`.process`, lesson 02), WebSocket (:mod:`.websocket`,
lesson 07), Streamable HTTP (:mod:`.sse`, :mod:`.event_store`, :mod:`.http`, lesson 08), and the
guard both network cables share (:mod:`.guard`). Each cable has ``send(message)`` and ``receive()``.
"""
