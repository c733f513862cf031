#!/usr/bin/env python3
"""A stand-in `pulumi` binary for lifecycle tests: records each call, answers like the CLI.

With FAKE_PULUMI_STACKS (a JSON file {stack: {"outputs": {...}, "created": ISO time,
"destroy_failures": n, "update_in_progress": bool, "locked_by": text}}) it plays a backend
holding those stacks: `stack ls`, `stack output`, `stack history` and `destroy` answer from it,
a destroy fails the first n times (a half-way failure), and a successful destroy empties the
stack's outputs.
FAKE_PULUMI_CONFIG_FAIL makes `config set` fail (a read-only checkout);
FAKE_PULUMI_DURING_DESTROY is a shell command run while a destroy runs.
With a stacks file, `up` plays a deploy too (issue 33): it answers FAKE_PULUMI_UP_ERRORS[stack]
(a cloud's recorded capacity error, trainstack/trial/capacity_errors.csv) with the part-created
group left in the state, unless trainstack:holdNodes is set (a group sized to 0 asks for no
capacity); otherwise the stack gets the outputs of the longest prefix of its name in
FAKE_PULUMI_UP_OUTPUTS and a state of provider, retained bucket, network and node group, which
`stack export` answers and a destroy empties. FAKE_PULUMI_UP_SLEEP slows `up`.
FAKE_PULUMI_VERSION overrides the reported version; FAKE_PULUMI_DESTROY_SLEEP slows destroys.
Stack config set through the API is kept in FAKE_PULUMI_LOG + ".config.json"; `stack export`
answers FAKE_PULUMI_STATE (a deployment) or a state holding one retained bucket.
"""
import os
import sys
import time


class json:  # noqa: N801 (stands in for the module: json.dump, dumps, load, loads)
    """The json module's own C half (_json, what json.dumps and json.loads run on): importing
    the module costs 13 of this stand-in's 29 ms of CPU per call (it imports re and enum), and
    the tests call the stand-in about 25 times a reaper test. Same text out, same values in:
    the default separators and ASCII escapes, strict strings, NaN and Infinity accepted."""
    import _json
    _scan = _json.make_scanner(type("Decoding", (), {
        "strict": True, "object_hook": None, "object_pairs_hook": None, "parse_float": float,
        "parse_int": int, "memo": {},
        "parse_constant": {"NaN": float("nan"), "Infinity": float("inf"),
                           "-Infinity": float("-inf")}.__getitem__})())

    @staticmethod
    def _unserializable(value):
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")

    @classmethod
    def dumps(cls, value):
        encode = cls._json.make_encoder({}, cls._unserializable, cls._json.encode_basestring_ascii,
                                        None, ": ", ", ", False, False, True)
        return "".join(encode(value, 0))

    @classmethod
    def loads(cls, text):
        text = text.strip(" \t\n\r")   # JSON's whitespace, which the decoder skips around a value
        try:
            value, end = cls._scan(text, 0)
        except StopIteration:
            raise ValueError(f"Expecting value: {text[:40]!r}") from None
        if end != len(text):
            raise ValueError(f"Extra data: {text[end:end + 40]!r}")
        return value

    @classmethod
    def dump(cls, value, file):
        with file:
            file.write(cls.dumps(value))

    @classmethod
    def load(cls, file):
        with file:
            return cls.loads(file.read())

argv = sys.argv[1:]
args = [a for a in argv if a != "--non-interactive"]
with open(os.environ["FAKE_PULUMI_LOG"], "a") as log:
    log.write(json.dumps({"args": args, "argv": argv, "backend": os.environ.get("PULUMI_BACKEND_URL"),
                          "passphrase": os.environ.get("PULUMI_CONFIG_PASSPHRASE"),
                          "cwd": os.getcwd()}) + "\n")


def option(name):
    return args[args.index(name) + 1] if name in args else None


def send_summary(event_log, changes):
    """The engine's summary event, which the Automation API requires from a preview."""
    event = {"sequence": 1, "timestamp": int(time.time()),
             "summaryEvent": {"maybeCorrupt": False, "durationSeconds": 1,
                              "resourceChanges": changes, "policyPacks": {}}}
    if event_log.startswith("tcp://"):
        import grpc
        # The SDK's generated event messages, without running the SDK's package __init__ (all
        # of `pulumi`: 0.2 of a preview's 0.35 CPU s); the two modules need only protobuf.
        import types
        packages = next(p for p in sys.path if os.path.isdir(os.path.join(p, "pulumi", "runtime")))
        for name in ("pulumi", "pulumi.runtime", "pulumi.runtime.proto"):
            package = sys.modules.setdefault(name, types.ModuleType(name))
            package.__path__ = [os.path.join(packages, *name.split("."))]
        from pulumi.runtime.proto import events_pb2, events_pb2_grpc
        with grpc.insecure_channel(event_log[len("tcp://"):]) as channel:
            events_pb2_grpc.EventsStub(channel).StreamEvents(
                iter([events_pb2.EventRequest(event=json.dumps(event))]))
    else:
        with open(event_log, "a") as log_file:
            log_file.write(json.dumps(event) + "\n")


stacks_file = os.environ.get("FAKE_PULUMI_STACKS")
stacks = json.load(open(stacks_file)) if stacks_file else None
stack = option("--stack")

# Stack config the API sets and reads (`config set/rm`, `config --json`), kept beside the log.
config_file = os.environ["FAKE_PULUMI_LOG"] + ".config.json"
config = json.load(open(config_file)) if os.path.exists(config_file) else {}
# `stack export`: FAKE_PULUMI_STATE (a deployment JSON file), else one with a retained bucket.
DEFAULT_STATE = {"resources": [
    {"urn": "urn:pulumi:aws::trainstack::pulumi:providers:aws::default", "custom": True,
     "id": "prov-1", "type": "pulumi:providers:aws", "retainOnDelete": True},
    {"urn": "urn:pulumi:aws::trainstack::trainstack:aws:GpuCluster$aws:s3/bucket:Bucket::"
            "llm-finetune-data", "custom": True, "id": "llm-finetune-data-a1b2",
     "type": "aws:s3/bucket:Bucket", "retainOnDelete": True},
    {"urn": "urn:pulumi:aws::trainstack::trainstack:aws:GpuCluster$aws:ec2/vpc:Vpc::"
            "llm-finetune-vpc", "custom": True, "id": "vpc-0abc", "type": "aws:ec2/vpc:Vpc"}]}



def deployed_state(stack_name, nodes):
    """What a deploy leaves in the state: the retained bucket, the network, maybe the nodes."""
    urn = f"urn:pulumi:{stack_name}::trainstack::trainstack:GpuCluster$"
    resources = [dict(DEFAULT_STATE["resources"][0]),
                 {"urn": urn + "bucket:Bucket::llm-finetune-data", "custom": True,
                  "id": f"{stack_name}-data", "type": "aws:s3/bucket:Bucket", "retainOnDelete": True},
                 {"urn": urn + "ec2/vpc:Vpc::llm-finetune-vpc", "custom": True,
                  "id": f"{stack_name}-vpc", "type": "aws:ec2/vpc:Vpc"}]
    if nodes:
        resources.append({"urn": urn + "autoscaling/group:Group::llm-finetune-nodes",
                          "custom": True, "id": f"{stack_name}-nodes",
                          "type": "aws:autoscaling/group:Group"})
    return {"resources": resources}


if stacks is not None and args[:1] == ["up"]:
    time.sleep(float(os.environ.get("FAKE_PULUMI_UP_SLEEP", "0")))
    entry = stacks.setdefault(stack, {})
    held = (config.get("trainstack:holdNodes") or {}).get("value") == "true"
    error = json.loads(os.environ.get("FAKE_PULUMI_UP_ERRORS", "{}")).get(stack)
    answers = json.loads(os.environ.get("FAKE_PULUMI_UP_OUTPUTS", "{}"))
    prefix = max((p for p in answers if stack.startswith(p)), key=len, default=None)
    entry.update(outputs=answers.get(prefix, {}), destroyed=False,
                 created=entry.get("created") or time.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
                 state=deployed_state(stack, nodes=not held))
    json.dump(stacks, open(stacks_file, "w"))
    if error and not held:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(255)
    print("up: done")
elif stacks is not None and args[:2] == ["stack", "export"] and "state" in stacks.get(stack, {}):
    print(json.dumps({"version": 3, "deployment": stacks[stack]["state"]}))
elif args[:1] == ["version"]:
    print(os.environ.get("FAKE_PULUMI_VERSION", "v3.272.0"))
elif args[:2] == ["stack", "export"]:
    state = (json.load(open(os.environ["FAKE_PULUMI_STATE"])) if os.environ.get("FAKE_PULUMI_STATE")
             else DEFAULT_STATE)
    print(json.dumps({"version": 3, "deployment": state}))
elif args[:2] == ["config", "set"] and os.environ.get("FAKE_PULUMI_CONFIG_FAIL"):
    print("error: open Pulumi.aws.yaml: read-only file system", file=sys.stderr)
    sys.exit(255)
elif args[:2] == ["config", "set"]:
    config[args[2]] = {"value": args[-1], "secret": "--secret" in args}
    json.dump(config, open(config_file, "w"))
elif args[:2] == ["config", "rm"]:
    config.pop(args[2], None)
    json.dump(config, open(config_file, "w"))
elif args[:1] == ["config"] and "--json" in args:
    print(json.dumps(config))
elif stacks is not None and args[:2] == ["stack", "ls"]:
    print(json.dumps([{"name": name, "current": False,
                       "updateInProgress": bool(s.get("update_in_progress")),
                       "resourceCount": s.get("resources", len(s.get("outputs") or {}))}
                      for name, s in stacks.items()]))
elif stacks is not None and args[:2] == ["stack", "select"] and stack not in stacks:
    if "--create" not in args:  # as the CLI answers a backend without that stack
        print(f"error: no stack named '{stack}' found", file=sys.stderr)
        sys.exit(255)
elif stacks is not None and args[:2] == ["stack", "output"]:
    print(json.dumps(stacks.get(stack, {}).get("outputs") or {}))
elif stacks is not None and args[:2] == ["stack", "history"]:
    # "created": the first update; "updates": later ones (a stack brought back after a stop).
    times = [t for t in [stacks.get(stack, {}).get("created"),
                         *stacks.get(stack, {}).get("updates", [])] if t]
    print(json.dumps([
        {"version": n, "kind": "update", "startTime": t, "endTime": t, "message": "",
         "environment": {}, "config": {}, "result": "succeeded", "resourceChanges": {"create": 27}}
        for n, t in reversed(list(enumerate(times, 1)))]))
elif stacks is not None and args[:1] == ["destroy"]:
    time.sleep(float(os.environ.get("FAKE_PULUMI_DESTROY_SLEEP", "0")))
    if os.environ.get("FAKE_PULUMI_DURING_DESTROY"):  # something that happens meanwhile
        import subprocess
        subprocess.run(os.environ["FAKE_PULUMI_DURING_DESTROY"], shell=True, check=True)
    stacks = json.load(open(stacks_file))   # as it is now, after the sleep
    entry = stacks.setdefault(stack, {})
    if entry.get("locked_by"):  # the file backend's own lock, held by someone's `pulumi up`
        print(f"error: the stack is currently locked by 1 lock(s). {entry['locked_by']}",
              file=sys.stderr)
        sys.exit(255)
    if entry.get("destroy_failures", 0) > 0:
        entry["destroy_failures"] -= 1
        json.dump(stacks, open(stacks_file, "w"))
        print("error: deleting urn:pulumi:fsx: DeleteFileSystem: throttled", file=sys.stderr)
        sys.exit(255)
    entry["outputs"], entry["destroyed"] = {}, True
    if "state" in entry:   # a destroy leaves nothing; the retained bucket leaves the state too
        entry["state"] = {"resources": []}
    json.dump(stacks, open(stacks_file, "w"))
    print("destroy: done")
elif args[:2] == ["stack", "output"]:
    print(json.dumps({"bucket_name": "llm-finetune-data-a1b2", "node_group": "llm-finetune-nodes"}))
elif args[:2] == ["stack", "history"]:
    print(json.dumps([{"version": 1, "kind": "update", "startTime": "2026-11-30T10:00:00.000Z",
                       "endTime": "2026-11-30T10:20:00.000Z", "message": "", "environment": {},
                       "config": {}, "result": "succeeded", "resourceChanges": {"create": 27}}]))
elif args[:1] in (["up"], ["destroy"], ["preview"]):
    if os.environ.get("FAKE_PULUMI_FAIL"):
        print("error: no valid credential sources found", file=sys.stderr)
        sys.exit(255)
    if args[:1] == ["preview"]:
        send_summary(option("--event-log"), {"create": 27})
        print("preview: done")
    else:
        print(f"{args[0]}: done")
