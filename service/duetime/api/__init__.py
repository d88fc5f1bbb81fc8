"""The faces of duetime: gRPC and JSON/HTTP, what every call does around the app, the one status table and the one proto ⇄ domain conversion."""
