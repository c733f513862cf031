"""A node in a box (issue 31): the user data exactly as the plan carries it, decoded as the cloud
decodes it, run for real as root in a minimal Debian root that holds what the node image holds,
with stand-ins only for what a box cannot have (GPUs, RDMA devices, kernel modules, the cloud's
metadata server and APIs, package repositories, the container registry, docker, the bucket), each
refusing what the real thing refuses. See tools/nodebox/README.md."""
