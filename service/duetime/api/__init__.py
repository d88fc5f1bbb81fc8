"""The gRPC transport of duetime (the only package importing grpc for serving)."""
