"""Alibaba Cloud: eRDMA ECS nodes in a LowLatency deployment set, CPFS beside them fed from OSS."""
