"""A cluster of trickroom nodes joined by Redis, over one PostgreSQL store (DESIGN section 11)."""
