#!/usr/bin/env python3
"""A stand-in `pulumi` binary for lifecycle tests: records each call, answers like the CLI."""
import json
import os
import sys

argv = sys.argv[1:]
args = [a for a in argv if a != "--non-interactive"]
with open(os.environ["FAKE_PULUMI_LOG"], "a") as log:
    log.write(json.dumps({"args": args, "argv": argv, "backend": os.environ.get("PULUMI_BACKEND_URL"),
                          "cwd": os.getcwd()}) + "\n")
if args[:1] == ["version"]:
    print("v3.272.0")
elif args[:2] == ["stack", "output"]:
    print(json.dumps({"bucket_name": "llm-finetune-data-a1b2", "node_group": "llm-finetune-nodes"}))
elif args[:2] == ["stack", "history"]:
    print(json.dumps([{"version": 1, "kind": "update", "startTime": "2026-11-30T10:00:00.000Z",
                       "endTime": "2026-11-30T10:20:00.000Z", "message": "", "environment": {},
                       "config": {}, "result": "succeeded", "resourceChanges": {"create": 27}}]))
elif args[:1] in (["up"], ["destroy"]):
    if os.environ.get("FAKE_PULUMI_FAIL"):
        print("error: no valid credential sources found", file=sys.stderr)
        sys.exit(255)
    print(f"{args[0]}: done")
