"""The pack's gRPC server: the Analyzer service's unary calls served from one thread.

pulumi_policy's PolicyPack serves its servicer with `grpc.server(ThreadPoolExecutor(4))`. Per
unary call, that server's polling thread hands the call to a pool thread, which starts the
receive and waits on a condition until the polling thread hands it the message, runs the
handler, and waits again for the send: about 0.25 ms of CPU per empty call here, most of it the
Python of grpc/_server.py on those threads (measured per thread: benchmarks/RESULTS.md, issue 35,
2026-12-06, 07:45-08:43 UTC). `Server` serves the same handlers from one thread on the core both
grpc.server and grpc.aio are built on (grpc._cython.cygrpc): request a call, receive its
message, run the handler, then send initial metadata, the message, the status and receive the
close as one batch. The method handlers are the ones PolicyPack registers (the same
deserialisers and serialisers), and every answer is the one the stock server gives: the
response bytes, and for failures the same status codes and details (a handler's
`context.abort`, `set_code`/`set_details`, an exception: UNKNOWN "Exception calling application:
...", an unknown method: UNIMPLEMENTED "Method not found!").

What the engine sees is unchanged: the port PolicyPack prints, the same service and messages.
Calls are served one after another (the engine makes them one after another; the stock server
ran them under one interpreter lock too). Only unary-unary methods are served (the Analyzer
service has no other kind); `install()` leaves the stock server where this grpc lacks the core
API used here or is not a release it was tested on (TESTED_GRPC_RELEASES), and
TRAINSTACK_POLICY_SERVER=stock in the pack's environment keeps it too.
"""
from __future__ import annotations

import logging
import os
import threading
from typing import Any, Iterable, Optional, Sequence

import grpc

try:
    from grpc._cython import cygrpc
except ImportError:  # pragma: no cover (every grpcio wheel has it)
    cygrpc = None

_LOGGER = logging.getLogger("grpc._server")   # where the stock server logs handler exceptions
_CORE = ("Server", "CompletionQueue", "ReceiveMessageOperation", "SendInitialMetadataOperation",
         "SendMessageOperation", "SendStatusFromServerOperation", "ReceiveCloseOnServerOperation",
         "StatusCode")
_SERVER = ("register_completion_queue", "add_http2_port", "start", "request_call", "shutdown",
           "cancel_all_calls")


# grpcio releases (major.minor) this server was tested on, whole tests/policies included.
# cygrpc is grpc's private layer: a release outside this list may have changed what `Server`
# relies on without removing a name, so the pack keeps the stock server there (slower, not
# wrong). Add a release here only after tests/policies passes on it.
TESTED_GRPC_RELEASES = frozenset({"1.85"})


def _release(version: str) -> str:
    return ".".join(version.split(".")[:2])


def available() -> bool:
    """Whether this grpc is a tested release with the core API `Server` is built on."""
    return cygrpc is not None and _release(grpc.__version__) in TESTED_GRPC_RELEASES and \
        all(hasattr(cygrpc, n) for n in _CORE) and \
        all(hasattr(cygrpc.Server, n) for n in _SERVER)


class _Aborted(Exception):
    """Raised by `_Context.abort`, as the stock context raises to end the handler."""


class _Context:
    """What a handler may ask of its grpc.ServicerContext here: the status (abort, set_code,
    set_details, trailing metadata), the call's metadata and peer."""

    __slots__ = ("_event", "code_", "details_", "trailing", "aborted")

    def __init__(self, event: Any):
        self._event = event
        self.code_: Optional[grpc.StatusCode] = None
        self.details_: Optional[bytes] = None
        self.trailing: Any = None
        self.aborted = False

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        if code == grpc.StatusCode.OK:   # as the stock context: OK is not a way to fail
            _LOGGER.error("abort() called with StatusCode.OK; returning UNKNOWN")
            code, details = grpc.StatusCode.UNKNOWN, ""
        self.code_, self.details_, self.aborted = code, _encode(details), True
        raise _Aborted()

    def abort_with_status(self, status: Any) -> None:
        self.trailing = status.trailing_metadata
        self.abort(status.code, status.details)

    def set_code(self, code: grpc.StatusCode) -> None:
        self.code_ = code

    def set_details(self, details: str) -> None:
        self.details_ = _encode(details)

    def code(self) -> Optional[grpc.StatusCode]:
        return self.code_

    def details(self) -> Optional[bytes]:
        return self.details_

    def set_trailing_metadata(self, metadata: Any) -> None:
        self.trailing = metadata

    def trailing_metadata(self) -> Any:
        return self.trailing

    def invocation_metadata(self) -> Any:
        return self._event.invocation_metadata

    def peer(self) -> str:
        return _decode(self._event.call.peer())

    def is_active(self) -> bool:
        return True    # the handler runs before anything is sent; a cancel shows in the send


def _encode(text: Any) -> bytes:
    return text if isinstance(text, bytes) else str(text).encode("utf8")


def _decode(raw: Any) -> str:
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw


def _code(code: Any) -> int:
    """A grpc.StatusCode as the core's number (an unknown value as UNKNOWN, as the stock
    server's mapping does)."""
    return code.value[0] if isinstance(code, grpc.StatusCode) else cygrpc.StatusCode.unknown


class _CallDetails:
    __slots__ = ("method", "invocation_metadata")

    def __init__(self, method: str, metadata: Any):
        self.method, self.invocation_metadata = method, metadata


_REQUEST = object()     # tags of the completion queue's events
_RECEIVED = object()
_FINISHED = object()
_SHUTDOWN = object()


class Server:
    """The subset of grpc.Server that PolicyPack uses (add_generic_rpc_handlers,
    add_registered_method_handlers, add_insecure_port, start, stop), serving from one thread."""

    def __init__(self, options: Sequence[Any] = ()):
        self._queue = cygrpc.CompletionQueue()
        self._core = cygrpc.Server(tuple(options), False)
        self._core.register_completion_queue(self._queue)
        self._generic: list = []
        self._registered: dict[str, Any] = {}
        self._handlers: dict[bytes, Any] = {}       # method path -> handler (None: not found)
        self._stopped = threading.Event()

    def add_generic_rpc_handlers(self, handlers: Iterable[Any]) -> None:
        for h in handlers:
            if getattr(h, "service", None) is None:
                raise AttributeError(f"{h} must conform to grpc.GenericRpcHandler")
            self._generic.append(h)

    def add_registered_method_handlers(self, service: str, handlers: dict) -> None:
        self._registered.update({f"/{service}/{name}": h for name, h in handlers.items()})

    def add_insecure_port(self, address: str) -> int:
        return int(self._core.add_http2_port(_encode(address)))

    def start(self) -> None:
        self._core.start()
        self._core.request_call(self._queue, self._queue, _REQUEST)
        threading.Thread(target=self._serve, name="trainstack-policy-server", daemon=True).start()

    def stop(self, grace: Optional[float] = None) -> threading.Event:
        self._core.shutdown(self._queue, _SHUTDOWN)
        self._core.cancel_all_calls()
        return self._stopped

    def wait_for_termination(self, timeout: Optional[float] = None) -> bool:
        return self._stopped.wait(timeout)

    def _handler(self, method: bytes, metadata: Any) -> Any:
        """The method's handler as the stock server finds it: registered ones first, then the
        generic handlers in the order they were added; looked up once per method."""
        if method in self._handlers:
            return self._handlers[method]
        name = _decode(method)
        found = self._registered.get(name)
        if found is None:
            details = _CallDetails(name, metadata)
            for generic in self._generic:
                found = generic.service(details)
                if found is not None:
                    break
        if found is not None and (found.request_streaming or found.response_streaming):
            found = None     # the Analyzer service has none; never served here
        self._handlers[method] = found
        return found

    def _serve(self) -> None:
        queue, core = self._queue, self._core
        flags = 0
        try:
            while True:
                # The last event and its call released before waiting (as grpc.server does): a
                # call left unanswered is cancelled when its last reference goes.
                event = tag = None
                event = queue.poll()
                tag = event.tag
                if tag is _REQUEST:
                    if not event.success:
                        continue     # shutting down: no more calls
                    core.request_call(queue, queue, _REQUEST)
                    method = event.call_details.method
                    if not method:
                        continue   # as grpc.server: never answered, so cancelled once dropped
                    handler = self._handler(method, event.invocation_metadata)
                    if handler is None:
                        event.call.start_server_batch((
                            cygrpc.SendInitialMetadataOperation(None, flags),
                            cygrpc.ReceiveCloseOnServerOperation(flags),
                            cygrpc.SendStatusFromServerOperation(
                                None, cygrpc.StatusCode.unimplemented, b"Method not found!",
                                flags)), _FINISHED)
                        continue
                    event.call.start_server_batch((cygrpc.ReceiveMessageOperation(flags),),
                                                  (_RECEIVED, event, handler))
                elif tag is _FINISHED or tag is None:
                    continue
                elif tag is _SHUTDOWN:
                    return
                else:
                    _, request_event, handler = tag
                    try:
                        self._answer(request_event, handler, event)
                    except Exception:  # noqa: BLE001 (a bug here must not stop the serving)
                        _LOGGER.exception("Exception answering a call!")
                        self._fail(request_event.call, None, cygrpc.StatusCode.internal,
                                   b"Exception answering the call!")
        finally:
            self._stopped.set()

    def _answer(self, request_event: Any, handler: Any, received: Any) -> None:
        """Run the handler on the received message and send its answer, as the stock server
        does (grpc/_server.py: _unary_response_in_pool, _call_behavior, _abort, _status)."""
        flags = 0
        call = request_event.call
        message = received.batch_operations[0].message() if received.success else None
        if message is None:
            if received.success:   # the client closed without a message
                self._fail(call, None, cygrpc.StatusCode.unimplemented, _encode(
                    f'"{_decode(request_event.call_details.method)}" requires exactly one '
                    f'request message.'))
            else:                  # cancelled: nothing to answer
                call.start_server_batch((cygrpc.ReceiveCloseOnServerOperation(flags),),
                                        _FINISHED)
            return
        deserialize = handler.request_deserializer
        try:
            request = message if deserialize is None else deserialize(message)
        except Exception:  # noqa: BLE001
            _LOGGER.exception("Exception deserializing message!")
            self._fail(call, None, cygrpc.StatusCode.internal, b"Exception deserializing request!")
            return
        context = _Context(request_event)
        try:
            response = handler.unary_unary(request, context)
        except Exception as exception:  # noqa: BLE001
            if not context.aborted:
                try:
                    details = f"Exception calling application: {exception}"
                except Exception:  # noqa: BLE001
                    details = "Calling application raised unprintable Exception!"
                _LOGGER.exception(details)
            else:
                details = "RPC Aborted"
            self._fail(call, context, cygrpc.StatusCode.unknown, _encode(details))
            return
        serialize = handler.response_serializer
        try:
            raw = response if serialize is None else serialize(response)
        except Exception:  # noqa: BLE001
            _LOGGER.exception("Exception serializing message!")
            raw = None
        if raw is None:    # a serialiser that raised, or a handler without one that gave None
            self._fail(call, context, cygrpc.StatusCode.internal, b"Failed to serialize response!")
            return
        code = cygrpc.StatusCode.ok if context.code_ is None else _code(context.code_)
        details_ = b"" if context.details_ is None else context.details_
        call.start_server_batch((
            cygrpc.SendInitialMetadataOperation(None, flags),
            cygrpc.SendMessageOperation(raw, flags),
            cygrpc.SendStatusFromServerOperation(context.trailing, code, details_, flags),
            cygrpc.ReceiveCloseOnServerOperation(flags)), _FINISHED)

    @staticmethod
    def _fail(call: Any, context: Optional[_Context], code: int, details: bytes) -> None:
        """The status without a message: the context's code and details where the handler set
        them, else `code` and `details` (the stock server's _abort)."""
        if context is not None and context.code_ is not None:
            code = _code(context.code_)
        if context is not None and context.details_ is not None:
            details = context.details_
        flags = 0
        call.start_server_batch((
            cygrpc.SendInitialMetadataOperation(None, flags),
            cygrpc.SendStatusFromServerOperation(
                None if context is None else context.trailing, code, details, flags),
            cygrpc.ReceiveCloseOnServerOperation(flags)), _FINISHED)


class _GrpcForPolicyPack:
    """The `grpc` pulumi_policy's PolicyPack sees: the module, except that `server()` gives a
    `Server` (for the one call PolicyPack makes: a thread pool and options, nothing else)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(grpc, name)

    @staticmethod
    def server(thread_pool: Any = None, handlers: Any = None, interceptors: Any = None,
               options: Any = None, maximum_concurrent_rpcs: Any = None,
               compression: Any = None, xds: bool = False) -> Any:
        if handlers or interceptors or maximum_concurrent_rpcs or compression or xds:
            return grpc.server(thread_pool, handlers, interceptors, options,
                               maximum_concurrent_rpcs, compression, xds)
        return Server(options or ())


def install(policy_module: Any) -> bool:
    """Serve PolicyPack's servicer with `Server`: pulumi_policy.policy's `grpc` becomes
    _GrpcForPolicyPack. Not where this grpc lacks the core API, nor with
    TRAINSTACK_POLICY_SERVER=stock."""
    if os.environ.get("TRAINSTACK_POLICY_SERVER") == "stock" or not available():
        return False
    if getattr(policy_module, "grpc", None) is not grpc:
        return isinstance(getattr(policy_module, "grpc", None), _GrpcForPolicyPack)
    policy_module.grpc = _GrpcForPolicyPack()
    return True
