"""The Redis transport: connections, the pipelined lane, table notifications, store health and failures."""
