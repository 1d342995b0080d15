# gebe's stub for Triton Python-backend models: gebe starts one of these per model instance (as
# Triton starts its stub process), and it runs the user's model.py. Control messages (names, shapes,
# offsets, errors) are length-prefixed JSON on file descriptors 3 (from gebe) and 4 (to gebe); tensor
# bytes live in a shared-memory file both processes map (argv[1]). stdout and stderr stay the
# model's own and end up in gebe's log.
import base64
import collections
import importlib.util
import itertools
import json
import mmap
import numbers
import os
import queue
import struct
import sys
import threading
import traceback

FROM_GEBE = 3
TO_GEBE = 4
MAX_MESSAGE_BYTES = 64 << 20
ALIGN = 64


# A decoupled model may send responses from threads of its own: one message at a time on the pipe.
_send_lock = threading.Lock()
# The largest control message gebe reads (set from the init message).
_control_cap = MAX_MESSAGE_BYTES


def _encode(message):
    return json.dumps(message, separators=(",", ":")).encode("utf-8")


def _send(message, data=None):
    data = _encode(message) if data is None else data
    with _send_lock:
        os.write(TO_GEBE, struct.pack("<I", len(data)))
        view = memoryview(data)
        while view:
            written = os.write(TO_GEBE, view)
            view = view[written:]


def _read_exact(n):
    chunks = []
    while n > 0:
        chunk = os.read(FROM_GEBE, n)
        if not chunk:
            sys.exit(0)  # gebe closed the pipe: it has gone, so has this process
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _read_message():
    (length,) = struct.unpack("<I", _read_exact(4))
    if length > MAX_MESSAGE_BYTES:
        raise RuntimeError(f"control message of {length} bytes from gebe exceeds {MAX_MESSAGE_BYTES}")
    return json.loads(_read_exact(length))


# gebe's messages are read by one thread as they come (_read_messages): a cancel message takes
# effect at once, so a model that loops inside execute() on is_cancelled() sees it; every other
# message waits here for the main thread, as does what ended the reading (gebe gone: SystemExit).
_inbox = queue.SimpleQueue()


def _read_messages():
    try:
        while True:
            message = _read_message()
            op = message.get("op")
            if op == "cancel":
                pb_utils._cancel_request(message.get("key"))
                continue
            if op in _CALL_REPLIES:  # for whichever thread of model.py waits on it
                _answer_call(message.get("call"), message)
                continue
            if _route_thread_bls(message):
                continue
            if op == "execute":  # before execute() can run: a cancel that follows finds its request
                for r in message.get("requests", []):
                    if "key" in r:
                        pb_utils._open_request(r["key"])
            _inbox.put(message)
    except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which raises it
        # Threads of model.py waiting on a reply get an error instead of waiting forever.
        closed = {"error": "gebe's control pipe closed", "final": True}
        for call in list(_call_replies):
            _answer_call(call, closed)
        for bls_id in list(_thread_bls):
            _route_thread_bls({"op": "bls_response", "bls_id": bls_id, **closed})
        _inbox.put(exc)


# Calls to gebe that wait for its reply (a metric's, the model loading API's), by call id: a queue
# each. Any thread of model.py may call.
_CALL_REPLIES = ("metric_reply", "model_control_reply")
_call_replies = {}
_call_ids = itertools.count(1)


def _call(op, fields):
    call = next(_call_ids)
    replies = queue.SimpleQueue()
    _call_replies[call] = replies
    _send({"op": op, "call": call, **fields})
    return replies.get()


def _answer_call(call, reply):
    replies = _call_replies.pop(call, None)
    if replies is not None:
        replies.put(reply)


def _metric_send(fields):
    try:
        _send({"op": "metric", **fields})
    except OSError:
        pass  # gebe has gone (a handle dropped as the process ends)


def _receive(carrying_bls=False):
    """gebe's next message; with carrying_bls (_wait_running_bls), the coroutine's BLS requests and
    markers too, which elsewhere are only the leftovers of a call that failed."""
    while True:
        message = _inbox.get()
        if isinstance(message, BaseException):
            raise message
        if carrying_bls or isinstance(message, dict):
            return message
        if isinstance(message, _MainThreadBls):
            message.replies.put(RuntimeError("the BLS request was lost: execute() ended with an error"))


def _error_line(exc):
    """The traceback's last line, with where in the user's code it was raised."""
    line = traceback.format_exception_only(type(exc), exc)[-1].strip()
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.endswith(("gebe_stub.py", "triton_python_backend_utils.py"))]
    if frames:
        where = frames[-1]
        line += f" (at {os.path.basename(where.filename)}:{where.lineno} in {where.name})"
    return line


if sys.version_info < (3, 8):
    _send({"op": "fatal", "message": f"Python {sys.version.split()[0]} at {sys.executable} is too old: gebe's Python backend needs Python 3.8 or newer"})
    sys.exit(1)
try:
    import numpy as np
except ImportError:
    _send({"op": "fatal", "message": f"numpy is not installed for {sys.executable}: install it with `{sys.executable} -m pip install numpy`"})
    sys.exit(1)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import triton_python_backend_utils as pb_utils  # noqa: E402

# The fixed-size datatypes (BYTES elements are read and written one by one).
_NUMPY_BY_KSERVE = {name: t for name, t in pb_utils._DATATYPES if name != "BYTES"}
_KSERVE_BY_NUMPY = {np.dtype(t): name for name, t in _NUMPY_BY_KSERVE.items()}


def _align(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


class Arena:
    """The shared-memory file: gebe writes inputs from offset 0; this side allocates after them."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR)
        self.size = 0
        self.map = None
        self.cap = 0
        self.pos = 0

    def ensure(self, size):
        """Maps at least `size` bytes (gebe may have grown the file). Older maps stay valid for the views on them."""
        if size > self.size:
            if os.fstat(self.fd).st_size < size:
                raise RuntimeError(f"shared memory file is shorter than the {size} bytes gebe announced")
            self.map = mmap.mmap(self.fd, size)
            self.size = size

    def reserve(self, nbytes, what):
        start = _align(self.pos)
        end = start + nbytes
        if end > self.cap:
            raise pb_utils.TritonModelException(
                f"{what} needs {nbytes} bytes of shared memory, beyond gebe's limit of {self.cap} bytes for one execute() of a Python model")
        if end > self.size:
            grown = min(self.cap, max(end, self.size * 2))
            os.ftruncate(self.fd, grown)
            self.ensure(grown)
        self.pos = end
        return start

    def read(self, desc, copy=False):
        shape = [int(d) for d in desc["shape"]]
        offset, size = int(desc["offset"]), int(desc["size"])
        if offset < 0 or size < 0 or offset + size > self.size:
            raise RuntimeError(f"tensor '{desc['name']}' lies outside the shared memory")
        if desc["datatype"] == "BYTES":
            mv = memoryview(self.map)[offset:offset + size]
            try:
                return _bytes_array(mv, shape)
            finally:
                mv.release()
        dtype = np.dtype(_NUMPY_BY_KSERVE[desc["datatype"]])
        count = size // dtype.itemsize
        if count == 0:
            return np.zeros(shape, dtype=dtype)
        array = np.frombuffer(self.map, dtype=dtype, count=count, offset=offset).reshape(shape)
        return array.copy() if copy else array

    def write(self, name, array, what):
        array = np.asarray(array)
        shape = list(array.shape)
        if array.dtype.kind in "OSU":
            encoded = _bytes_elements(array)
            size = sum(4 + len(e) for e in encoded)
            offset = self.reserve(size, what)
            at = offset
            for e in encoded:
                struct.pack_into("<I", self.map, at, len(e))
                self.map[at + 4:at + 4 + len(e)] = e
                at += 4 + len(e)
            return {"name": name, "datatype": "BYTES", "shape": shape, "offset": offset, "size": size}
        datatype = _datatype_of(array, what)
        size = array.nbytes
        offset = self.reserve(size, what)
        if size > 0:
            target = np.ndarray(array.shape, dtype=array.dtype.newbyteorder("<"), buffer=self.map, offset=offset)
            target[...] = array
        return {"name": name, "datatype": datatype, "shape": shape, "offset": offset, "size": size}


def _bytes_array(buffer, shape):
    """A BYTES tensor's elements (each a 4-byte length, then its bytes) as a numpy object array."""
    elements = []
    at = 0
    while at < len(buffer):
        (n,) = struct.unpack_from("<I", buffer, at)
        elements.append(bytes(buffer[at + 4:at + 4 + n]))
        at += 4 + n
    array = np.empty(len(elements), dtype=np.object_)
    array[:] = elements
    return array.reshape(shape)


def _from_inline(desc):
    """A tensor carried in a control message (base64): the other way of _inline."""
    data = base64.b64decode(desc["data"])
    shape = [int(d) for d in desc["shape"]]
    if desc["datatype"] == "BYTES":
        return _bytes_array(data, shape)
    return np.frombuffer(data, dtype=np.dtype(_NUMPY_BY_KSERVE[desc["datatype"]]).newbyteorder("<")).reshape(shape)


def _datatype_of(array, what):
    datatype = _KSERVE_BY_NUMPY.get(array.dtype.newbyteorder("=") if array.dtype.byteorder not in "=|" else array.dtype)
    if datatype is None:
        raise pb_utils.TritonModelException(f"{what} has numpy dtype {array.dtype}, which has no Triton datatype")
    return datatype


def _bytes_elements(array):
    return [_as_bytes(e) for e in array.ravel(order="C")]


def _inline(name, array, what):
    """A tensor carried in the control message itself (base64), as a decoupled response's outputs are:
    such a response may be sent after execute() returned, when the shared memory is the next call's."""
    array = np.asarray(array)
    if array.dtype.kind in "OSU":
        datatype, data = "BYTES", b"".join(struct.pack("<I", len(e)) + e for e in _bytes_elements(array))
    else:
        datatype, data = _datatype_of(array, what), np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return {"name": name, "datatype": datatype, "shape": list(array.shape), "data": base64.b64encode(data).decode("ascii")}


def _as_bytes(element):
    if isinstance(element, bytes):
        return element
    if isinstance(element, str):
        return element.encode("utf-8")
    return str(element).encode("utf-8")


arena = Arena(sys.argv[1])


# The responses of decoupled BLS requests not yet read by their iterators, by request; and the
# requests an execute() left unread, whose later responses are dropped wherever they arrive.
_bls_streams = {}
_bls_abandoned = set()
# Ids of the BLS requests whose responses come as bls_response messages (decoupled ones, and every
# one a thread sends); any thread may take one.
_bls_ids = itertools.count(1)


def _next_reply(wanted):
    """Reads gebe's messages during execute() until one `wanted(message)` takes: a decoupled BLS
    response waits in its stream's queue."""
    while True:
        message = _receive()
        op = message.get("op")
        if wanted(message):
            return message
        elif op == "bls_response" and message.get("bls_id") in _bls_streams:
            _bls_streams[message["bls_id"]].append(message)
        elif not _dropped(message):
            raise RuntimeError(f"unexpected control message {op!r} from gebe during execute()")


def _on_main_thread():
    return threading.current_thread() is threading.main_thread()


# BLS requests sent from threads model.py started, by id: the reader thread puts their replies in
# each one's queue; None marks one whose caller stopped reading (its replies are dropped).
_thread_bls = {}


def _route_thread_bls(message):
    """The reader thread's part: True when `message` answered a BLS request of a thread."""
    bls_id = message.get("bls_id")
    if message.get("op") != "bls_response" or bls_id not in _thread_bls:
        return False
    replies = _thread_bls[bls_id]
    if message.get("final"):
        _thread_bls.pop(bls_id, None)
    if replies is not None:
        replies.put(message)
    return True


def _thread_bls_exec(request, decoupled):
    """exec() from a thread model.py started (a decoupled model's response thread): the shared memory
    belongs to execute(), so the inputs and every response travel in the control messages, each
    bounded by their limit. decoupled=True: an iterator of the target's responses; else its one
    response (a decoupled target is refused, as from execute())."""
    bls_id = next(_bls_ids)
    message = _bls_fields(request, [_inline(t.name(), t.as_numpy(), f"BLS input '{t.name()}'") for t in request.inputs()])
    message.update({"inline": True, "decoupled": bool(decoupled), "bls_id": bls_id})
    data = _encode(message)
    if len(data) > _control_cap:
        raise pb_utils.TritonModelException(
            f"a BLS request of {len(data)} bytes (its inputs in base64) from a thread exceeds gebe's limit of {_control_cap} bytes")
    replies = queue.SimpleQueue()
    _thread_bls[bls_id] = replies
    _send(message, data)

    def responses():
        final = False
        try:
            while not final:
                reply = replies.get()
                final = bool(reply.get("final"))
                yield _bls_reply_response(reply)
        finally:
            if not final and bls_id in _thread_bls:
                _thread_bls[bls_id] = None

    if decoupled:
        return responses()
    return _bls_reply_response(replies.get())


def _bls_reply_response(reply):
    if reply.get("error") is not None:
        return pb_utils.InferenceResponse(error=pb_utils.TritonError(reply["error"]))
    return _bls_response([pb_utils.Tensor(d["name"], _from_inline(d)) for d in reply.get("outputs") or []], reply)


def _bls_response(outputs, reply):
    """A BLS request's response, with its parameters as the target gave them (JSON text)."""
    response = pb_utils.InferenceResponse(outputs)
    response._parameters = reply.get("parameters") or "{}"
    return response


def _bls_fields(request, inputs):
    """A BLS request as gebe reads it, but for where its tensors travel: the target, the inputs
    (described by the caller), and what else Triton's BLS requests carry (a sequence's id and
    START/END flags, the timeout in µs, the parameters as a JSON string)."""
    correlation_id = request.correlation_id()
    if isinstance(correlation_id, numbers.Integral) and not isinstance(correlation_id, bool) and 0 <= correlation_id < 1 << 64:
        correlation_id = int(correlation_id)  # numpy's integers too
    elif not isinstance(correlation_id, str):
        raise pb_utils.TritonModelException(f"a BLS request's correlation_id must be an unsigned 64-bit integer or a string, not {correlation_id!r:.60}")
    return {
        "op": "bls", "model_name": request.model_name(), "model_version": request._model_version,
        "inputs": inputs, "outputs": request.requested_output_names(), "request_id": request.request_id(),
        "correlation_id": f"u:{correlation_id}" if isinstance(correlation_id, int) else f"s:{correlation_id}",
        "flags": int(request.flags()), "timeout": int(request.timeout()), "parameters": request.parameters(),
        **({"trace": request.trace()._id} if request.trace()._id is not None else {}),
    }


def _bls_message(request):
    message = _bls_fields(request, [arena.write(t.name(), t.as_numpy(), f"BLS input '{t.name()}'") for t in request.inputs()])
    message.update({"out_offset": _align(arena.pos), "shm_size": arena.size})
    return message


def _bls_stream(request):
    """exec(decoupled=True): the target's responses, one at a time as they come (the last may be
    empty: the final flag alone). Their outputs travel in the messages: more may come while
    model.py sends other BLS requests, which use the shared memory."""
    message = _bls_message(request)
    bls_id = next(_bls_ids)
    message.update({"decoupled": True, "bls_id": bls_id})
    _bls_streams[bls_id] = collections.deque()
    _send(message)
    return _bls_responses(bls_id)


def _bls_responses(bls_id):
    while True:
        if bls_id not in _bls_streams:
            raise pb_utils.TritonModelException("a decoupled BLS request's responses are read in the execute() call that sent it")
        waiting = _bls_streams[bls_id]
        reply = waiting.popleft() if waiting else _next_reply(lambda m: m.get("op") == "bls_response" and m.get("bls_id") == bls_id)
        final = bool(reply.get("final"))
        if final:
            del _bls_streams[bls_id]
        yield _bls_reply_response(reply)
        if final:
            return


def _abandon_bls_streams():
    """After execute(): the decoupled BLS requests model.py left unread are dropped, now and as their
    responses come (the instance does not wait for them)."""
    for bls_id, waiting in _bls_streams.items():
        if not any(reply.get("final") for reply in waiting):
            _bls_abandoned.add(bls_id)
    _bls_streams.clear()


def _dropped(message):
    """Whether `message` is a response of an abandoned decoupled BLS request (then it is dropped)."""
    bls_id = message.get("bls_id")
    if message.get("op") != "bls_response" or bls_id not in _bls_abandoned:
        return False
    if message.get("final"):
        _bls_abandoned.discard(bls_id)
    return True


def _bls_exec(request, decoupled=False):
    if not _on_main_thread():
        ran = None if decoupled else _bls_while_main_thread_waits(request)
        return ran if ran is not None else _thread_bls_exec(request, decoupled)
    if decoupled:
        return _bls_stream(request)
    _send(_bls_message(request))
    reply = _next_reply(lambda m: m.get("op") == "bls_result")
    if reply.get("error") is None:
        arena.pos = int(reply["free_offset"])
    return _bls_result_response(reply)


def _bls_result_response(reply):
    """model.py's response to a BLS request whose outputs gebe wrote into the shared memory."""
    if reply.get("error") is not None:
        return pb_utils.InferenceResponse(error=pb_utils.TritonError(reply["error"]))
    arena.ensure(int(reply["shm_size"]))
    return _bls_response([pb_utils.Tensor(d["name"], arena.read(d)) for d in reply["outputs"]], reply)


def _log(level, message):
    _send({"op": "log", "level": level, "message": message[:65536]})


def _response_parameters(response):
    """The parameters model.py gave a response, as the answer carries them (none: nothing)."""
    text = response.parameters()
    return {} if text == "{}" else {"parameters": text}


def _send_response(key, response, final, requested):
    """One response of a decoupled model's request (see InferenceResponseSender.send)."""
    message = {"op": "response", "key": key, "final": final}
    if response is not None and response.has_error():
        message["error"] = response.error().message()
        message["code"] = response.error().code()
    elif response is not None:
        wanted = set(requested)
        message["outputs"] = [_inline(t.name(), t.as_numpy(), f"output '{t.name()}'")
                              for t in response.output_tensors() if not wanted or t.name() in wanted]
        message.update(_response_parameters(response))
    data = _encode(message)
    if len(data) > _control_cap:
        raise pb_utils.TritonModelException(
            f"a decoupled response of {len(data)} bytes (its outputs in base64) exceeds gebe's limit of {_control_cap} bytes for one response")
    _send(message, data)


pb_utils._bls_exec = _bls_exec
pb_utils._log_sink = _log
pb_utils._send_response = _send_response
pb_utils._call = _call
pb_utils._metric_send = _metric_send


def _model_class(model_file):
    model_dir = os.path.dirname(os.path.abspath(model_file))
    pb_utils.get_model_dir = lambda: model_dir  # Triton's: the directory of model.py
    sys.path.insert(0, os.path.dirname(model_file))
    spec = importlib.util.spec_from_file_location("model", model_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cls = getattr(module, "TritonPythonModel", None)
    if cls is None:
        raise pb_utils.TritonModelException(f"{model_file} defines no class TritonPythonModel")
    return cls


def _auto_complete(message):
    """The config as TritonPythonModel.auto_complete_config(config) completes it (Triton runs it once
    per load, before any instance; gebe in a process of its own)."""
    cls = _model_class(message["model_file"])
    config = pb_utils.ModelConfig(json.loads(message["args"]["model_config"]))
    if hasattr(cls, "auto_complete_config"):
        returned = cls.auto_complete_config(config)
        if returned is not None and not isinstance(returned, pb_utils.ModelConfig):
            raise pb_utils.TritonModelException(
                f"auto_complete_config() must return the ModelConfig it was given, it returned {type(returned).__name__}")
        config = returned or config
    return config.as_dict()


def _load(message):
    model_file = message["model_file"]
    cls = _model_class(model_file)
    args = message["args"]
    model = cls()
    if hasattr(model, "initialize"):
        model.initialize(args)
    if not hasattr(model, "execute"):
        raise pb_utils.TritonModelException(f"TritonPythonModel in {model_file} has no execute(self, requests) method")
    return model


# model.py's coroutines run on one event loop, on a thread of its own, for the life of the process,
# as in Triton's stub: what one execute() made on the loop (a lock, a queue, a task left running)
# serves the next, and a decoupled model's execute() coroutines run side by side, each from the
# moment its batch arrives.
_loop = None
_background = set()


def _event_loop():
    global _loop
    if _loop is None:
        import asyncio  # here, not at start: importing it costs a process start ~40 ms, and most models never await
        _loop = asyncio.new_event_loop()
        asyncio.set_event_loop(_loop)  # the main thread's get_event_loop() names it too, as in Triton
        threading.Thread(target=_loop.run_forever, name="gebe-asyncio", daemon=True).start()
    return _loop


async def _await(awaitable):
    return await awaitable


def _run_execute(model, requests, decoupled=False):
    """Calls execute(): a coroutine it returns runs on the event loop, waited for (decoupled=False)
    or left to run while the next batch comes (decoupled=True: its requests end through their
    senders, or with its error should it raise)."""
    result = model.execute(requests)
    if not hasattr(result, "__await__"):
        return result
    import asyncio  # loaded by the first coroutine only (see _event_loop)
    start = lambda: asyncio.run_coroutine_threadsafe(_await(result), _event_loop())  # noqa: E731
    if not decoupled:
        return _wait_running_bls(start)
    future = start()
    _background.add(future)
    future.add_done_callback(lambda done: _background_done(done, requests))
    return None


# While the main thread waits for a plain model's execute() coroutine, the BLS requests that
# coroutine sends (exec() on the loop, async_exec() on its executor's threads) are carried by the
# main thread, so their tensors go through the shared memory as execute()'s own do, and several are
# in flight at once: each one's inputs are written and sent as it comes (deferred: gebe holds its
# response), and when a response is ready the main thread reserves room for its outputs and asks
# gebe to write them there (bls_fetch). The main thread does all the allocating, so no two requests
# share memory. Elsewhere a thread's BLS request travels in the control messages (_thread_bls_exec).
_main_waiting = False
_main_waiting_lock = threading.Lock()
_COROUTINE_DONE = object()  # the coroutine ended (put in _inbox by its future)
_NO_MORE_JOBS = object()  # no BLS request was put in _inbox after this


class _MainThreadBls:
    """A BLS request of a coroutine's thread, for the main thread to carry; `replies` gets its response."""

    def __init__(self, request):
        self.request = request
        self.replies = queue.SimpleQueue()


def _wait_running_bls(start):
    """Starts the coroutine (`start()`: its future) and carries its BLS requests until it has ended
    and none is left in flight; its result."""
    global _main_waiting
    with _main_waiting_lock:  # before the coroutine starts: its first BLS request is the main thread's too
        _main_waiting = True
    in_flight = {}  # bls_id -> its _MainThreadBls
    jobs_open = True
    try:
        future = start()
        future.add_done_callback(lambda _: _inbox.put(_COROUTINE_DONE))
        while jobs_open or in_flight:
            message = _receive(carrying_bls=True)
            if message is _COROUTINE_DONE:
                with _main_waiting_lock:  # every BLS request put before this is ahead of _NO_MORE_JOBS
                    _main_waiting = False
                    _inbox.put(_NO_MORE_JOBS)
            elif message is _NO_MORE_JOBS:
                jobs_open = False  # the coroutine's leftover requests in flight are still seen to their end
            elif isinstance(message, _MainThreadBls):
                _send_deferred_bls(message, in_flight)
            elif message.get("bls_id") in in_flight and message.get("op") in ("bls_ready", "bls_result"):
                _deferred_bls_reply(message, in_flight)
            elif not _dropped(message):
                raise RuntimeError(f"unexpected control message {message.get('op')!r} from gebe during execute()")
    finally:  # gebe gone or broken: the threads waiting on a request are not left waiting
        with _main_waiting_lock:
            _main_waiting = False
        for job in in_flight.values():
            job.replies.put(RuntimeError("the BLS request was lost: execute() ended with an error"))
    return future.result()


def _send_deferred_bls(job, in_flight):
    try:
        message = _bls_message(job.request)
    except Exception as exc:  # noqa: BLE001 - raised again in the thread that sent the request
        job.replies.put(exc)
        return
    bls_id = next(_bls_ids)
    message.update({"deferred": True, "bls_id": bls_id})
    in_flight[bls_id] = job
    _send(message)


def _deferred_bls_reply(message, in_flight):
    """bls_ready: the target answered; its outputs need `size` bytes, reserved here. bls_result: they
    are written (or the request failed, or a small answer came inline)."""
    bls_id = message["bls_id"]
    if message["op"] == "bls_result":
        job = in_flight.pop(bls_id)
        try:  # a small answer comes inline
            job.replies.put(_bls_reply_response(message) if message.get("inline") else _bls_result_response(message))
        except Exception as exc:  # noqa: BLE001 - raised again in the thread that sent the request
            job.replies.put(exc)
        return
    try:
        offset = arena.reserve(int(message["size"]), f"the BLS response of model '{in_flight[bls_id].request.model_name()}'")
    except pb_utils.TritonModelException as exc:  # beyond the cap: that request fails, and gebe drops its response
        _send({"op": "bls_fetch", "bls_id": bls_id, "drop": True})
        in_flight.pop(bls_id).replies.put(pb_utils.InferenceResponse(error=pb_utils.TritonError(str(exc))))
        return
    _send({"op": "bls_fetch", "bls_id": bls_id, "out_offset": offset, "shm_size": arena.size})


def _bls_while_main_thread_waits(request):
    """exec() of `request` carried by the main thread while it waits for a coroutine (its response,
    or it raises); None when the main thread is not waiting."""
    job = _MainThreadBls(request)
    with _main_waiting_lock:
        if not _main_waiting:
            return None
        _inbox.put(job)
    reply = job.replies.get()
    if isinstance(reply, BaseException):
        raise reply
    return reply


def _background_done(future, requests):
    """A decoupled execute() coroutine ended: if it raised, the requests it left open end with its
    error (Triton only logs it and leaves them open)."""
    _background.discard(future)
    exc = future.exception() if not future.cancelled() else RuntimeError("execute() was cancelled")
    if exc is None:
        return
    _log(pb_utils.LogLevel.ERROR, "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip())
    _fail_open(requests, exc)


def _fail_open(requests, exc):
    """Ends each of a decoupled execute()'s requests not yet ended with the error `exc`."""
    error = pb_utils.InferenceResponse(error=pb_utils.TritonError(_error_line(exc)))
    for request in requests:
        try:
            request._sender.send(error, pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        except pb_utils.TritonModelException:
            pass  # its final response went out already


def _correlation_id(key):
    """A sequence's id as gebe keys it ("u:7", "s:abc") as correlation_id() gives it: 7, "abc"; 0 without one."""
    if not key:
        return 0
    return int(key[2:]) if key.startswith("u:") else key[2:]


def _read_requests(message, decoupled):
    requests = []
    for r in message["requests"]:
        # A decoupled model's requests outlive execute() (threads answer them later), when the next
        # call's inputs fill the shared memory: their tensors are copies, not views of it.
        inputs = [pb_utils.Tensor(d["name"], arena.read(d, copy=decoupled)) for d in r["inputs"]]
        request = pb_utils.InferenceRequest(
            model_name=message["model_name"], inputs=inputs, requested_output_names=r["outputs"], request_id=r.get("id", ""),
            parameters=json.dumps(r.get("parameters") or {}), correlation_id=_correlation_id(r.get("correlation")), flags=int(r.get("flags") or 0),
            timeout=int(r.get("timeout") or 0), trace=pb_utils.InferenceTrace(r.get("trace"), r.get("trace_context")))
        request._sender = pb_utils.InferenceResponseSender(r["key"], r["outputs"]) if decoupled else pb_utils._OneResponseSender(r.get("key"))
        request._executing = True  # set_release_flags() may reschedule it until execute() returns
        requests.append(request)
    return requests


def _execute_decoupled(model, message):
    """execute() of a decoupled model: responses go out through each request's sender, now or later
    (from threads the model starts); a failed call ends every request it left open with the error."""
    arena.ensure(int(message["shm_size"]))
    arena.pos = int(message["free_offset"])
    requests = []
    try:
        requests = _read_requests(message, True)
        try:
            result = _run_execute(model, requests, decoupled=True)
        finally:
            for request in requests:
                request._executing = False
        if result is not None:
            raise pb_utils.TritonModelException(
                f"execute() of a decoupled model must return None (responses go through request.get_response_sender()), it returned {type(result).__name__}")
    except Exception as exc:  # noqa: BLE001 - any failure of model.py fails the open requests, never the stub
        _fail_open(requests, exc)
        if not requests:
            return {"op": "result", "error": _error_line(exc), "shm_size": arena.size}
    # A rescheduled request stays open: its responses may go on, and it runs again.
    rescheduled = [r._sender._key for r in requests if r._rescheduled() and not r._sender._closed]
    return {"op": "result", "decoupled": True, "rescheduled": rescheduled, "shm_size": arena.size}


def _sent_responses(requests):
    """What a model that is not decoupled sent through its requests' senders, when execute() returned None."""
    for i, request in enumerate(requests):
        if request._sender.response is None and not request._rescheduled():
            raise pb_utils.TritonModelException(
                f"execute() returned None but sent no response for request {i} through its response sender; return a list "
                "of InferenceResponse, or send one per request with flags=TRITONSERVER_RESPONSE_COMPLETE_FINAL")
    return [request._sender.response for request in requests]


def _execute(model, message):
    arena.ensure(int(message["shm_size"]))
    arena.pos = int(message["free_offset"])
    requests = []
    try:
        requests = _read_requests(message, False)
        try:
            responses = _run_execute(model, requests)
        finally:
            for request in requests:
                request._sender.open = False
                request._executing = False
            for r in message["requests"]:
                pb_utils._close_request(r.get("key"))
        if responses is None:
            responses = _sent_responses(requests)
        if not isinstance(responses, (list, tuple)) or len(responses) != len(requests):
            got = f"a list of {len(responses)}" if isinstance(responses, (list, tuple)) else type(responses).__name__
            raise pb_utils.TritonModelException(f"execute() must return a list of {len(requests)} InferenceResponse (one per request), it returned {got}")
    except Exception as exc:  # noqa: BLE001 - any failure of model.py fails the batch, never the stub
        return {"op": "result", "error": _error_line(exc), "shm_size": arena.size}
    answers = []
    for request, response in zip(requests, responses):
        try:
            if request._rescheduled():
                if response is not None:
                    raise pb_utils.TritonModelException(
                        f"Expected a None object in the execute function return list for rescheduled request, found type '{type(response).__name__}'")
                answers.append({"rescheduled": True})
                continue
            if not isinstance(response, pb_utils.InferenceResponse):
                raise pb_utils.TritonModelException(f"execute() returned a {type(response).__name__} where an InferenceResponse was expected")
            if response.has_error():
                answers.append({"error": response.error().message(), "code": response.error().code()})
                continue
            wanted = set(request.requested_output_names())
            outputs = []
            for tensor in response.output_tensors():
                if wanted and tensor.name() not in wanted:
                    continue
                outputs.append(arena.write(tensor.name(), tensor.as_numpy(), f"output '{tensor.name()}'"))
            answers.append({"outputs": outputs, **_response_parameters(response)})
        except Exception as exc:  # noqa: BLE001
            answers.append({"error": _error_line(exc)})
    return {"op": "result", "responses": answers, "shm_size": arena.size}


def main():
    global _control_cap
    threading.Thread(target=_read_messages, name="gebe-control-reader", daemon=True).start()
    message = _receive()
    arena.cap = int(message["shm_cap"])
    arena.ensure(int(message["shm_size"]))
    _control_cap = int(message.get("control_cap", MAX_MESSAGE_BYTES))
    decoupled = bool(message.get("decoupled", False))
    pb_utils._iterative = bool(message.get("iterative", False))
    if message.get("auto_complete"):
        try:
            _send({"op": "auto_completed", "config": _auto_complete(message)})
        except Exception as exc:  # noqa: BLE001
            _send({"op": "init_error", "message": _error_line(exc)})
        return
    try:
        model = _load(message)
    except Exception as exc:  # noqa: BLE001
        _send({"op": "init_error", "message": _error_line(exc)})
        return
    _send({"op": "ready"})
    while True:
        message = _receive()
        op = message.get("op")
        if op == "execute":
            result = _execute_decoupled(model, message) if decoupled else _execute(model, message)
            _abandon_bls_streams()
            _send(result)
        elif _dropped(message):
            pass
        elif op == "finalize":
            if _loop is not None:  # as Triton: coroutines still running stop before finalize()
                _loop.call_soon_threadsafe(_loop.stop)
            error = None
            if hasattr(model, "finalize"):
                try:
                    model.finalize()
                except Exception as exc:  # noqa: BLE001
                    error = _error_line(exc)
            _send({"op": "finalized", "error": error})
            return


main()
