"""Google Cloud: A3/A4 nodes in one zonal managed instance group with compact placement, their
RoCE or GPUDirect-TCPX(O) NIC VPCs, Managed Lustre in the same zone, GCS, a billing budget."""
