"""Lesson 11, beyond one process: lesson 08's endpoint on several workers that share one Redis.

* :mod:`~minimcp.transports.cluster.redis_store`: the event store on Redis Streams;
* :mod:`~minimcp.transports.cluster.directory`: which worker runs each session, and its saved state;
* :mod:`~minimcp.transports.cluster.streams`: streams any worker writes, and any worker follows;
* :mod:`~minimcp.transports.cluster.relay`: what other workers forward to this one;
* :mod:`~minimcp.transports.cluster.sessions`: lesson 08's sessions, state and streams in Redis;
* :mod:`~minimcp.transports.cluster.endpoint`: the endpoint that forwards, follows and takes over.
"""
