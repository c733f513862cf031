"""Stand-in cloud CLIs for the reaper's fault tests, enforcing what the real APIs enforce.

`aliyun ecs DescribeInstances` pages as the ECS API does (API reference, DescribeInstances:
PageSize "Maximum value: 100. Default value: 10", PageNumber from 1, InstanceIds "up to 100
instance IDs", the answer carrying TotalCount/PageNumber/PageSize); StopInstances and
StartInstances take InstanceId.N (N up to 100). The instances live in FAKE_ALIYUN_INSTANCES (a JSON
list of {InstanceId, HostName, Status}); every call is appended to FAKE_ALIYUN_INSTANCES + ".calls".
`aliyun nas CreateDataFlowTask` answers FAKE_ALIYUN_EXPORT (a JSON {"code": exit, "stderr": text}).
"""
import sys

ALIYUN = f"""#!{sys.executable}
import json, os, sys
path = os.environ["FAKE_ALIYUN_INSTANCES"]
args = sys.argv[1:]
with open(path + ".calls", "a") as log:
    log.write(json.dumps(args) + "\\n")
def opt(name, default=None):
    return args[args.index(name) + 1] if name in args else default
def fail(code, message):
    print(f"ERROR: SDK.ServerError\\nErrorCode: {{code}}\\nMessage: {{message}}", file=sys.stderr)
    sys.exit(1)
instances = json.load(open(path))
if args[:2] == ["ecs", "DescribeInstances"]:
    size, page = int(opt("--PageSize", "10")), int(opt("--PageNumber", "1"))
    if not 1 <= size <= 100:
        fail("InvalidParameter.PageSize", "The specified parameter PageSize is not valid.")
    wanted = json.loads(opt("--InstanceIds", "null") or "null")
    if wanted is not None and len(wanted) > 100:
        fail("InvalidInstanceIds.ValueNotSupported", "The specified InstanceIds is not valid.")
    chosen = [i for i in instances if wanted is None or i["InstanceId"] in wanted]
    print(json.dumps({{"Instances": {{"Instance": chosen[(page - 1) * size:page * size]}},
                      "TotalCount": len(chosen), "PageNumber": page, "PageSize": size}}))
elif args[:2] in (["ecs", "StopInstances"], ["ecs", "StartInstances"]):
    ids = [a.split("=", 1)[1] for a in args if a.startswith("--InstanceId.")]
    if len(ids) > 100:
        fail("InvalidParameter", "InstanceId.N: N up to 100")
    state = "Stopped" if args[1] == "StopInstances" else "Running"
    for i in instances:
        if i["InstanceId"] in ids:
            i["Status"] = state
    json.dump(instances, open(path, "w"))
    print(json.dumps({{"RequestId": "r"}}))
elif args[:2] == ["nas", "CreateDataFlowTask"]:
    answer = json.loads(os.environ.get("FAKE_ALIYUN_EXPORT") or '{{"code": 0}}')
    if answer.get("stderr"):
        print(answer["stderr"], file=sys.stderr)
    if answer.get("code"):
        sys.exit(answer["code"])
    print(json.dumps({{"TaskId": "task-1"}}))
else:
    fail("InvalidAction.NotFound", "stand-in: " + " ".join(args[:2]))
"""
