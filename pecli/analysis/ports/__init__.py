"""Ports: why two tables or caches differ (pecli diff): comparison and likely causes."""
