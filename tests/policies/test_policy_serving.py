"""The pack's own gRPC server (policies/serving.py) answers as the stock grpc.server does.

The engine sees only the wire: the response bytes, or a status code and its details. Each case
below states by hand what grpc's stock server sends (grpc/_server.py: a handler's abort() gives
its code and details; set_code()/set_details() then an exception gives those; any other
exception UNKNOWN "Exception calling application: <exception>"; undecodable request bytes
INTERNAL "Exception deserializing request!"; an unknown method UNIMPLEMENTED "Method not
found!"), and checks both servers against it, so the stand-in is held to what the real thing
does.
"""
from __future__ import annotations

import os
import subprocess
import sys
from concurrent import futures

import grpc
import pytest
from google.protobuf import struct_pb2

from tests.policy_harness import PACK_DIR
from trainstack_policies import serving


def _echo(request, context):
    return request


def _echo_struct(request, context):
    out = struct_pb2.Struct()
    out.update({"got": request["n"] + 1})
    return out


def _abort(request, context):
    context.abort(grpc.StatusCode.INVALID_ARGUMENT, "maxMonthlyUSD is not a setting")


def _unimplemented(request, context):
    # what generated servicer bases do for a method they do not implement
    context.set_code(grpc.StatusCode.UNIMPLEMENTED)
    context.set_details("Method not implemented!")
    raise NotImplementedError("Method not implemented!")


def _crash(request, context):
    raise ValueError("a shape no rule expected")


def _nothing(request, context):
    return None


def _code_and_answer(request, context):
    context.set_code(grpc.StatusCode.NOT_FOUND)
    context.set_details("no such stack")
    return b"ignored"


HANDLERS = grpc.method_handlers_generic_handler("test.Service", {
    "Echo": grpc.unary_unary_rpc_method_handler(_echo),
    "Struct": grpc.unary_unary_rpc_method_handler(
        _echo_struct, request_deserializer=struct_pb2.Struct.FromString,
        response_serializer=struct_pb2.Struct.SerializeToString),
    "Abort": grpc.unary_unary_rpc_method_handler(_abort),
    "Unimplemented": grpc.unary_unary_rpc_method_handler(_unimplemented),
    "Crash": grpc.unary_unary_rpc_method_handler(_crash),
    "CodeAndAnswer": grpc.unary_unary_rpc_method_handler(_code_and_answer),
    "Nothing": grpc.unary_unary_rpc_method_handler(_nothing),
    "Unserialisable": grpc.unary_unary_rpc_method_handler(
        _echo, response_serializer=struct_pb2.Struct.SerializeToString),
})


def _stock():
    return grpc.server(futures.ThreadPoolExecutor(max_workers=4))


@pytest.fixture(params=["stock", "pack"])
def channel(request):
    server = _stock() if request.param == "stock" else serving.Server()
    server.add_generic_rpc_handlers((HANDLERS,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        yield ch
    server.stop(0)


def _status(channel, method, body=b""):
    with pytest.raises(grpc.RpcError) as err:
        channel.unary_unary(f"/test.Service/{method}")(body, timeout=10)
    return err.value.code(), err.value.details()


def test_a_unary_answer_is_the_handlers_bytes(channel):
    echo = channel.unary_unary("/test.Service/Echo")
    assert echo(b"\x00abc\xff", timeout=10) == b"\x00abc\xff"
    assert echo(b"", timeout=10) == b""
    big = bytes(range(256)) * 4096          # 1 MiB, several HTTP/2 frames each way
    assert echo(big, timeout=10) == big


def test_requests_and_answers_go_through_the_methods_serialisers(channel):
    call = channel.unary_unary("/test.Service/Struct",
                               request_serializer=struct_pb2.Struct.SerializeToString,
                               response_deserializer=struct_pb2.Struct.FromString)
    request = struct_pb2.Struct()
    request.update({"n": 41})
    assert dict(call(request, timeout=10)) == {"got": 42.0}


def test_sequential_calls_each_get_their_own_answer(channel):
    echo = channel.unary_unary("/test.Service/Echo")
    for i in range(300):
        assert echo(str(i).encode(), timeout=10) == str(i).encode()


def test_abort_sends_the_handlers_code_and_details(channel):
    assert _status(channel, "Abort") == (grpc.StatusCode.INVALID_ARGUMENT,
                                         "maxMonthlyUSD is not a setting")


def test_set_code_then_raise_sends_that_code_and_details(channel):
    # how the engine learns Handshake is not implemented (test_policy_grpc.py)
    assert _status(channel, "Unimplemented") == (grpc.StatusCode.UNIMPLEMENTED,
                                                 "Method not implemented!")


def test_an_exception_is_unknown_with_its_message(channel):
    assert _status(channel, "Crash") == (
        grpc.StatusCode.UNKNOWN, "Exception calling application: a shape no rule expected")


def test_a_code_set_on_a_returned_answer_is_the_status(channel):
    assert _status(channel, "CodeAndAnswer") == (grpc.StatusCode.NOT_FOUND, "no such stack")


def test_an_unknown_method_is_unimplemented(channel):
    assert _status(channel, "Nope") == (grpc.StatusCode.UNIMPLEMENTED, "Method not found!")
    with pytest.raises(grpc.RpcError) as err:
        channel.unary_unary("/other.Service/Echo")(b"", timeout=10)
    assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_the_engines_empty_method_probe_is_answered_and_not_unavailable(channel):
    # The engine checks a plugin is up by invoking the method "" and retries while the answer
    # is UNAVAILABLE (pulumi/pulumi sdk/go/common/resource/plugin/plugin.go, testConnection);
    # grpc.server never answers an empty method, so the call ends CANCELLED.
    with pytest.raises(grpc.RpcError) as err:
        channel.unary_unary("")(b"", timeout=10)
    assert err.value.code() == grpc.StatusCode.CANCELLED


def test_undecodable_request_bytes_are_internal(channel):
    # 0x0a is field 1, length-delimited, with its length missing: not a Struct
    assert _status(channel, "Struct", b"\x0a") == (grpc.StatusCode.INTERNAL,
                                                   "Exception deserializing request!")


def test_an_answer_that_cannot_be_serialised_is_internal(channel):
    # None without a serialiser; bytes given to a message serialiser
    assert _status(channel, "Nothing") == (grpc.StatusCode.INTERNAL,
                                           "Failed to serialize response!")
    assert _status(channel, "Unserialisable", b"x") == (grpc.StatusCode.INTERNAL,
                                                        "Failed to serialize response!")


def test_the_server_keeps_serving_after_failures(channel):
    _status(channel, "Crash")
    _status(channel, "Nothing")
    _status(channel, "Struct", b"\x0a")
    _status(channel, "Nope")
    assert channel.unary_unary("/test.Service/Echo")(b"still here", timeout=10) == b"still here"


_WHICH_SERVER = """
import importlib.util, sys
from pathlib import Path
pack = Path(sys.argv[1])
spec = importlib.util.spec_from_file_location("trainstack_policies", pack / "__init__.py",
                                              submodule_search_locations=[str(pack)])
module = importlib.util.module_from_spec(spec)
sys.modules["trainstack_policies"] = module
spec.loader.exec_module(module)
from pulumi_policy import policy
from trainstack_policies import pack as pack_module, serving
pack_module.install_analyzer()
server = policy.grpc.server(None, options=[("grpc.max_receive_message_length", 400 << 20)])
print(type(server).__module__, type(server).__name__)
"""


@pytest.mark.parametrize("setting, expected", [
    (None, "trainstack_policies.serving Server"),
    ("stock", "grpc._server _Server"),
])
def test_the_pack_process_serves_with_its_own_server_unless_told_not_to(setting, expected):
    """What PolicyPack gets when it asks pulumi_policy's `grpc` for a server, after the pack's
    __main__ has run install_analyzer()."""
    env = {k: v for k, v in os.environ.items() if k != "TRAINSTACK_POLICY_SERVER"}
    if setting:
        env["TRAINSTACK_POLICY_SERVER"] = setting
    out = subprocess.run([sys.executable, "-c", _WHICH_SERVER, str(PACK_DIR)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == expected


@pytest.mark.parametrize("version, served_by_the_pack", [
    ("1.85.4", True),     # the release tests/policies ran on (constraints.txt pins it)
    ("1.85.0", True),
    ("1.86.0", False),    # a newer release: cygrpc is private, so untested means stock
    ("1.71.2", False),    # the oldest pulumi-policy accepts, never tested here
])
def test_the_pack_serves_itself_only_on_a_grpc_release_it_was_tested_on(monkeypatch, version,
                                                                           served_by_the_pack):
    monkeypatch.setattr(grpc, "__version__", version)
    assert serving.available() is served_by_the_pack


def test_the_grpc_installed_here_is_a_tested_release():
    """The tests above prove the pack's server on the grpc installed here: if constraints.txt
    moves grpcio, this names the release to test and then add to TESTED_GRPC_RELEASES."""
    assert ".".join(grpc.__version__.split(".")[:2]) in serving.TESTED_GRPC_RELEASES, grpc.__version__
