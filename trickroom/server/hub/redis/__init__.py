"""A node of a cluster: the hub port on Redis (:class:`.hub.RedisHub`), in parts."""
