"""duetime: business-calendar and SLA arithmetic as a recorded gRPC service.

Layers: ``duetime.core`` (pure arithmetic), ``duetime.ledger`` (record store),
``duetime.app`` (use cases), ``duetime.api`` (gRPC) and ``duetime.cli``.
"""
