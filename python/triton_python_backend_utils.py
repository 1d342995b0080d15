# gebe's triton_python_backend_utils: the module a Triton Python-backend model.py imports
# (`import triton_python_backend_utils as pb_utils`), run by gebe's stub (gebe_stub.py) in a process
# gebe starts per model instance. It offers what real models use; tensors are numpy arrays, and
# inputs are views over the shared memory gebe wrote them into.
import functools
import itertools
import json
import math
import struct
import threading
import weakref

import numpy as np

# The flag of InferenceResponseSender.send() that ends a request, and those of request.flags()
# on a sequence model's requests (Triton's values).
TRITONSERVER_RESPONSE_COMPLETE_FINAL = 1
TRITONSERVER_REQUEST_FLAG_SEQUENCE_START = 1
TRITONSERVER_REQUEST_FLAG_SEQUENCE_END = 2
# Where a BLS request's outputs should live (InferenceRequest's preferred_memory): gebe's are in CPU memory.
TRITONSERVER_MEMORY_CPU = 0
TRITONSERVER_MEMORY_CPU_PINNED = 1
TRITONSERVER_MEMORY_GPU = 2
# Triton's request release flags (InferenceRequest.set_release_flags).
TRITONSERVER_REQUEST_RELEASE_ALL = 1
TRITONSERVER_REQUEST_RELEASE_RESCHEDULE = 2

# Triton's data types in the order of their codes (inference.DataType 1-13), by KServe name, with
# their numpy types: the one table the config names (TYPE_*), the codes and the stub's KServe
# datatypes are read from.
_DATATYPES = (
    ("BOOL", np.bool_), ("UINT8", np.uint8), ("UINT16", np.uint16), ("UINT32", np.uint32), ("UINT64", np.uint64),
    ("INT8", np.int8), ("INT16", np.int16), ("INT32", np.int32), ("INT64", np.int64),
    ("FP16", np.float16), ("FP32", np.float32), ("FP64", np.float64), ("BYTES", np.object_),
)
_NUMPY_BY_TRITON = {"TYPE_" + ("STRING" if name == "BYTES" else name): t for name, t in _DATATYPES}
_NUMPY_BY_CODE = {code: t for code, (_, t) in enumerate(_DATATYPES, 1)}

# Set by the stub: whether the model runs iterative sequences (requests may be rescheduled).
_iterative = False
# Set by the stub: sends a BLS request to gebe and returns its InferenceResponse (decoupled=True: an iterator of them).
_bls_exec = None
# Set by the stub: sends a log line to gebe's log.
_log_sink = None
# Set by the stub: sends one response of a decoupled model's request (key, response or None, final, requested names).
_send_response = None


TRITON_STRING_TO_NUMPY = dict(_NUMPY_BY_TRITON)


def triton_to_numpy_type(data_type):
    """The numpy type of a Triton data type code (11: float32); None for a code numpy has no type for."""
    return _NUMPY_BY_CODE.get(data_type)


def numpy_to_triton_type(data_type):
    """The Triton data type code of a numpy type (np.float32: 11; bytes and objects: 13); None otherwise."""
    if data_type in (np.object_, np.bytes_):
        return 13
    for code, numpy_type in _NUMPY_BY_CODE.items():
        if data_type == numpy_type:
            return code
    return None


def serialize_byte_tensor(input_tensor):
    """A BYTES tensor's elements in Triton's wire form (each a 4-byte little-endian length, then its
    bytes, in C order); () for an empty tensor, None for one that is not bytes or objects."""
    if input_tensor.size == 0:
        return ()
    if input_tensor.dtype != np.object_ and input_tensor.dtype.type != np.bytes_:
        return None
    parts = []
    for element in input_tensor.flat:
        data = element if isinstance(element, bytes) else str(element).encode("utf-8")
        parts.append(struct.pack("<I", len(data)))
        parts.append(data)
    return b"".join(parts)


def deserialize_bytes_tensor(encoded_tensor):
    """The elements of a BYTES tensor in Triton's wire form, as a 1-D numpy array of bytes objects."""
    view = memoryview(encoded_tensor).cast("B")
    elements, offset = [], 0
    while offset < len(view):
        if offset + 4 > len(view):
            raise TritonModelException(f"deserialize_bytes_tensor: a length prefix is cut off at byte {offset}")
        (length,) = struct.unpack_from("<I", view, offset)
        offset += 4
        if offset + length > len(view):
            raise TritonModelException(f"deserialize_bytes_tensor: an element of {length} bytes at byte {offset} runs past the end")
        elements.append(bytes(view[offset:offset + length]))
        offset += length
    return np.array(elements, dtype=np.object_)


def using_decoupled_model_transaction_policy(model_config):
    """Whether a config (as initialize() gets it, parsed) sets model_transaction_policy { decoupled: true }."""
    return bool((model_config.get("model_transaction_policy") or {}).get("decoupled", False))


def triton_string_to_numpy(triton_type_string):
    """numpy type of a config data_type ('TYPE_FP32' -> np.float32; TYPE_STRING -> np.object_)."""
    return _NUMPY_BY_TRITON.get(triton_type_string)


class TritonError(Exception):
    UNKNOWN = 0
    INTERNAL = 1
    NOT_FOUND = 2
    INVALID_ARG = 3
    UNAVAILABLE = 4
    UNSUPPORTED = 5
    ALREADY_EXISTS = 6
    CANCELLED = 7

    def __init__(self, message, code=INTERNAL):
        super().__init__(message)
        self._message = str(message)
        self._code = code

    def message(self):
        return self._message

    def code(self):
        return self._code


class TritonModelException(Exception):
    pass


class Tensor:
    """A named tensor over a numpy array (BYTES tensors are numpy object arrays of bytes)."""

    def __init__(self, name, numpy_array, name_is_first=True):
        if not isinstance(name, str):
            raise TritonModelException("Tensor(name, numpy_array): name must be a string")
        if not isinstance(numpy_array, np.ndarray):
            raise TritonModelException(f"Tensor '{name}': expected a numpy array, got {type(numpy_array).__name__}")
        self._name = name
        self._array = numpy_array

    def name(self):
        return self._name

    def as_numpy(self):
        return self._array

    def shape(self):
        return list(self._array.shape)

    def is_cpu(self):
        return True

    def to_dlpack(self):
        return self._array.__dlpack__()

    @staticmethod
    def from_dlpack(name, dlpack_object):
        return Tensor(name, np.from_dlpack(dlpack_object))


class InferenceTrace:
    """A request's trace (request.trace()): a BLS request built with trace=request.trace() of a
    traced request is traced as its child. In the server's OpenTelemetry mode get_context() is
    Triton's trace context, JSON with the traceparent of the request's model span (to propagate to
    what model.py calls); otherwise None."""

    def __init__(self, trace_id=None, context=None):
        self._id = trace_id
        self._context = context

    def get_context(self, mode="opentelemetry"):
        return self._context if mode == "opentelemetry" else None


class PreferredMemory:
    """Where a BLS request's outputs should live (Triton's); gebe's are always in CPU memory."""

    def __init__(self, preferred_memory_type=TRITONSERVER_MEMORY_CPU, preferred_device_id=0):
        self.preferred_memory_type = preferred_memory_type
        self.preferred_device_id = preferred_device_id


def _parameters_json(parameters, text_allowed=True):
    """A request's or response's parameters as Triton takes them: a dict of str keys and str, int or
    bool values (a request's may be its JSON text too), kept as JSON text."""
    if isinstance(parameters, str) and text_allowed:
        return parameters
    if parameters is None:
        return "{}"
    if not isinstance(parameters, dict):
        raise TritonModelException(f"parameters must be a dict, found type {type(parameters).__name__}")
    for key, value in parameters.items():
        if not isinstance(key, str):
            raise TritonModelException(f"Expect parameters keys to have type str, found type {type(key).__name__}")
        if not isinstance(value, (bool, int, str)):
            raise TritonModelException(f"Expect parameters values to have type bool/int/str, found type {type(value).__name__}")
    return json.dumps(parameters)


class InferenceResponse:
    def __init__(self, output_tensors=None, error=None, parameters=None):
        self._outputs = list(output_tensors or [])
        if error is not None and not isinstance(error, TritonError):
            error = TritonError(str(error))
        self._error = error
        self._parameters = _parameters_json(parameters, text_allowed=False)

    def output_tensors(self):
        return self._outputs

    def has_error(self):
        return self._error is not None

    def parameters(self):
        return self._parameters

    def error(self):
        return self._error


class InferenceRequest:
    """A request given to execute(), or (built by model.py) a BLS request to another model: exec()."""

    def __init__(self, model_name="", inputs=None, requested_output_names=None, model_version=-1,
                 request_id="", correlation_id=0, flags=0, timeout=0, parameters=None, trace=None, **_ignored):
        self._model_name = model_name
        self._inputs = list(inputs or [])
        self._requested = list(requested_output_names or [])
        self._model_version = int(model_version)
        self._request_id = request_id
        self._correlation_id = correlation_id
        self._flags = flags
        self._timeout = timeout
        self._parameters = _parameters_json(parameters)
        self._trace = trace if isinstance(trace, InferenceTrace) else InferenceTrace()

    def inputs(self):
        return self._inputs

    def requested_output_names(self):
        return self._requested

    def request_id(self):
        return self._request_id

    def correlation_id(self):
        return self._correlation_id

    def flags(self):
        return self._flags

    def timeout(self):
        return self._timeout

    def trace(self):
        """The request's trace: hand it to a BLS request (trace=request.trace()) to trace that as its child."""
        return self._trace

    def parameters(self):
        return self._parameters

    def model_name(self):
        return self._model_name

    def is_cancelled(self):
        sender = getattr(self, "_sender", None)
        return sender is not None and sender.is_cancelled()

    def set_release_flags(self, flags):
        """Triton's request rescheduling: with TRITONSERVER_REQUEST_RELEASE_RESCHEDULE the request runs
        again in a later execute() (a model with sequence_batching { iterative_sequence: true }),
        without flags; execute() must not have returned, and returns None for it (not decoupled)."""
        if flags not in (TRITONSERVER_REQUEST_RELEASE_ALL, TRITONSERVER_REQUEST_RELEASE_RESCHEDULE):
            raise TritonModelException(
                f"set_release_flags(): flags must be TRITONSERVER_REQUEST_RELEASE_ALL or TRITONSERVER_REQUEST_RELEASE_RESCHEDULE, got {flags!r}")
        if flags == TRITONSERVER_REQUEST_RELEASE_RESCHEDULE:
            if not _iterative:
                raise TritonModelException(
                    "Request is released with TRITONSERVER_REQUEST_RELEASE_RESCHEDULE, but the model does not run iterative "
                    "sequences: set sequence_batching { iterative_sequence: true } in its config")
            if not getattr(self, "_executing", False):
                raise TritonModelException("set_release_flags(): a request is rescheduled from the execute() call that got it, before it returns")
            if getattr(self._sender, "_closed", False):
                raise TritonModelException("set_release_flags(): this request's final response was sent already; it cannot be rescheduled")
        self._release_flags = flags

    def _rescheduled(self):
        return getattr(self, "_release_flags", TRITONSERVER_REQUEST_RELEASE_ALL) == TRITONSERVER_REQUEST_RELEASE_RESCHEDULE

    def get_response_sender(self):
        if getattr(self, "_sender", None) is None:
            raise TritonModelException("get_response_sender() is for the requests execute() gets")
        return self._sender

    def exec(self, decoupled=False):
        """Runs the request on another model: its response, or with decoupled=True an iterator of
        its responses as they come (a decoupled target's any number, the last maybe empty)."""
        if _bls_exec is None:
            raise TritonModelException("BLS requests can only be sent from execute()")
        return _bls_exec(self, decoupled=decoupled)

    async def async_exec(self, decoupled=False):
        """exec() on a thread of the event loop's executor, as Triton's: several BLS requests can be
        in flight at once (asyncio.gather), and the loop runs other coroutines meanwhile."""
        import asyncio  # running a coroutine, asyncio is loaded already; a stub that never awaits does not pay for it
        return await asyncio.get_running_loop().run_in_executor(None, functools.partial(self.exec, decoupled))


# The requests model.py holds, by key, each with whether its client went away: the stub's reader
# thread adds a request when its execute message arrives and marks it when gebe's cancel message
# does (at once, even while execute() runs); execute()'s return (a decoupled request's final
# response) removes it.
_cancelled = {}
_cancelled_lock = threading.Lock()


def _open_request(key):
    with _cancelled_lock:
        _cancelled[key] = False


def _close_request(key):
    with _cancelled_lock:
        _cancelled.pop(key, None)


def _cancel_request(key):
    with _cancelled_lock:
        if key in _cancelled:
            _cancelled[key] = True


class InferenceResponseSender:
    """Sends a decoupled model's responses for one request, from execute() or any thread, until one has the final flag."""

    def __init__(self, key, requested_output_names):
        self._key = key
        self._requested = requested_output_names
        self._closed = False
        self._lock = threading.Lock()

    def send(self, response=None, flags=0):
        final = bool(flags & TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        if response is None and not final:
            raise TritonModelException("send(): a response is needed unless flags is TRITONSERVER_RESPONSE_COMPLETE_FINAL")
        if response is not None and not isinstance(response, InferenceResponse):
            raise TritonModelException(f"send(): expected an InferenceResponse, got {type(response).__name__}")
        with self._lock:
            if self._closed:
                raise TritonModelException("send(): this request's final response was sent already (TRITONSERVER_RESPONSE_COMPLETE_FINAL)")
            _send_response(self._key, response, final, self._requested)
            self._closed = final
            if final:
                _close_request(self._key)

    def is_cancelled(self):
        """True once the request's client went away (gebe tells the stub when it sees the call end)."""
        return _cancelled.get(self._key, False)


class _OneResponseSender:
    """get_response_sender() in a model that is not decoupled (Triton's default mode): exactly one
    response a request, sent with the final flag from inside execute(), which then returns None."""

    def __init__(self, key):
        self._key = key
        self.response = None
        self.open = True

    def send(self, response=None, flags=0):
        if not self.open:
            raise TritonModelException("send(): a model that is not decoupled sends its responses inside execute()")
        if self.response is not None or response is None or not flags & TRITONSERVER_RESPONSE_COMPLETE_FINAL:
            raise TritonModelException(
                "send(): a model that is not decoupled sends exactly one response a request, "
                "with flags=TRITONSERVER_RESPONSE_COMPLETE_FINAL")
        if not isinstance(response, InferenceResponse):
            raise TritonModelException(f"send(): expected an InferenceResponse, got {type(response).__name__}")
        self.response = response

    def is_cancelled(self):
        return _cancelled.get(self._key, False)


def get_input_tensor_by_name(request, name):
    for tensor in request.inputs():
        if tensor.name() == name:
            return tensor
    return None


def get_output_tensor_by_name(response, name):
    for tensor in response.output_tensors():
        if tensor.name() == name:
            return tensor
    return None


def _tensor_config_by_name(model_config, kind, name):
    for tensor in model_config.get(kind, []) or []:
        if tensor.get("name") == name:
            return tensor
    return None


def get_input_config_by_name(model_config, name):
    return _tensor_config_by_name(model_config, "input", name)


def get_output_config_by_name(model_config, name):
    return _tensor_config_by_name(model_config, "output", name)


class LogLevel:
    INFO = 0
    WARNING = 1
    ERROR = 2
    VERBOSE = 3


class Logger:
    @staticmethod
    def log(message, level=LogLevel.INFO):
        if _log_sink is not None:
            _log_sink(level, str(message))

    @staticmethod
    def log_info(message):
        Logger.log(message, LogLevel.INFO)

    @staticmethod
    def log_warn(message):
        Logger.log(message, LogLevel.WARNING)

    @staticmethod
    def log_error(message):
        Logger.log(message, LogLevel.ERROR)

    @staticmethod
    def log_verbose(message):
        Logger.log(message, LogLevel.VERBOSE)


class ModelConfig:
    """What auto_complete_config(config) receives and returns: the model's config, which it may
    complete (inputs, outputs, max_batch_size, dynamic batching, decoupled) as Triton's does; gebe
    serves the completed config. Conflicts with what config.pbtxt says raise ValueError."""

    def __init__(self, config):
        self._config = config
        config.setdefault("input", [])
        config.setdefault("output", [])
        config.setdefault("max_batch_size", 0)

    def as_dict(self):
        return self._config

    def _where(self):
        return f"auto_complete_config() of model '{self._config.get('name', '')}'"

    def set_max_batch_size(self, max_batch_size):
        if isinstance(max_batch_size, bool) or not isinstance(max_batch_size, int) or max_batch_size < 0:
            raise ValueError(f"{self._where()}: max_batch_size must be an integer of 0 or more, got {max_batch_size!r}")
        configured = int(self._config.get("max_batch_size") or 0)
        if configured > max_batch_size:
            raise ValueError(f"{self._where()} sets max_batch_size {max_batch_size}, below the {configured} config.pbtxt sets")
        self._config["max_batch_size"] = max_batch_size

    def set_dynamic_batching(self):
        for other in ("sequence_batching", "ensemble_scheduling"):
            if other in self._config:
                raise ValueError(f"{self._where()} asks for dynamic_batching, but config.pbtxt sets {other}")
        self._config.setdefault("dynamic_batching", {})

    def _add_tensor(self, kind, tensor, allowed):
        if not isinstance(tensor, dict):
            raise ValueError(f"{self._where()}: add_{kind}() takes a dict, got {type(tensor).__name__}")
        name = tensor.get("name")
        for key in ("name", "data_type", "dims"):
            if key not in tensor:
                raise ValueError(f"{self._where()}: {kind} {name!r} has no '{key}'")
        extra = sorted(set(tensor) - set(allowed))
        if extra:
            raise ValueError(f"{self._where()}: {kind} {name!r} has {', '.join(repr(k) for k in extra)}; an {kind} takes only {', '.join(allowed)}")
        for existing in self._config[kind]:
            if existing.get("name") != name:
                continue
            declared = existing.get("data_type", "TYPE_INVALID")
            if declared != "TYPE_INVALID" and declared != tensor["data_type"]:
                raise ValueError(f"{self._where()}: {kind} '{name}' is {tensor['data_type']}, but config.pbtxt declares {declared}")
            if existing.get("dims") and list(existing["dims"]) != list(tensor["dims"]):
                raise ValueError(f"{self._where()}: {kind} '{name}' has dims {list(tensor['dims'])}, but config.pbtxt declares {list(existing['dims'])}")
            if "optional" in existing and "optional" in tensor and existing["optional"] != tensor["optional"]:
                raise ValueError(f"{self._where()}: {kind} '{name}' has optional {tensor['optional']}, but config.pbtxt declares {existing['optional']}")
            existing.update(tensor)
            return
        self._config[kind].append(dict(tensor))

    def add_input(self, input):  # noqa: A002 - Triton's parameter name
        self._add_tensor("input", input, ("name", "data_type", "dims", "optional"))

    def add_output(self, output):
        self._add_tensor("output", output, ("name", "data_type", "dims"))

    def set_model_transaction_policy(self, transaction_policy_dict):
        if not isinstance(transaction_policy_dict, dict) or set(transaction_policy_dict) - {"decoupled"}:
            raise ValueError(f"{self._where()}: set_model_transaction_policy() takes a dict with 'decoupled' only")
        policy = self._config.setdefault("model_transaction_policy", {})
        if "decoupled" in transaction_policy_dict:
            wanted = bool(transaction_policy_dict["decoupled"])
            if "decoupled" in policy and bool(policy["decoupled"]) != wanted:
                raise ValueError(f"{self._where()} sets decoupled {wanted}, but config.pbtxt sets {bool(policy['decoupled'])}")
            policy["decoupled"] = wanted


# Set by the stub: _call(op, fields) sends a message to gebe and returns its reply; _metric_send(fields)
# sends a metric message that needs none.
_call = None
_metric_send = None
_metric_ids = itertools.count(1)


def _metric_number(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TritonModelException(f"{what} must be a number, got {type(value).__name__}")
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return value


def _call_reply(op, fields):
    """gebe's reply to a call, or its error raised."""
    reply = _call(op, fields)
    if reply.get("error") is not None:
        raise TritonModelException(reply["error"])
    return reply


def _metric_reply(fields):
    return _call_reply("metric", fields)


def load_model(model_name, config="", files=None):
    """Triton's model loading API: loads (or reloads) another model of the server, with `config` (the
    model's config as JSON) in place of its config.pbtxt; needs explicit model control mode. gebe
    takes no model files inline (`files`): they are refused as the repository API refuses them."""
    parameters = {"config": config} if config else {}
    parameters.update({key: "" for key in (files or {})})
    _call_reply("model_control", {"action": "load", "model_name": model_name, "parameters": parameters})


def unload_model(model_name, unload_dependents=False):
    """Triton's model loading API: unloads another model of the server (explicit model control mode)."""
    _call_reply("model_control", {"action": "unload", "model_name": model_name, "parameters": {"unload_dependents": bool(unload_dependents)}})


def is_model_ready(model_name, model_version=""):
    """Whether another model of the server (at `model_version`, or any) is READY."""
    return bool(_call_reply("model_control", {"action": "is_ready", "model_name": model_name, "model_version": str(model_version)})["ready"])


class MetricFamily:
    """A family of custom metrics, served on gebe's /metrics beside its own: one name, description and
    kind, shared by every model that creates it (Triton's custom metrics API)."""

    COUNTER = 0
    GAUGE = 1
    HISTOGRAM = 2

    def __init__(self, name, description, kind):
        if not isinstance(name, str) or not isinstance(description, str):
            raise TritonModelException("MetricFamily(name, description, kind): name and description must be strings")
        if kind not in (MetricFamily.COUNTER, MetricFamily.GAUGE, MetricFamily.HISTOGRAM) or isinstance(kind, bool):
            raise TritonModelException("MetricFamily kind must be MetricFamily.COUNTER, GAUGE or HISTOGRAM")
        self._id = None
        self._name = name
        self._kind = kind
        family = next(_metric_ids)
        _metric_reply({"action": "family", "family": family, "name": name, "description": description, "kind": kind})
        self._id = family

    def Metric(self, labels=None, buckets=None):  # noqa: N802 - Triton's name
        return Metric(self, labels, buckets)

    def __del__(self):
        if getattr(self, "_id", None) is not None and _metric_send is not None:
            _metric_send({"action": "family_delete", "family": self._id})


class Metric:
    """One series of a MetricFamily, by its labels (the same labels in a family: the same series).
    Counters: increment() by a non-negative value; gauges: increment() and set(); both value();
    histograms (buckets: ascending upper bounds): observe()."""

    def __init__(self, family, labels=None, buckets=None):
        if not isinstance(family, MetricFamily):
            raise TritonModelException("Metric(family, ...): family must be a MetricFamily")
        labels = {} if labels is None else labels
        if not isinstance(labels, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in labels.items()):
            raise TritonModelException("Metric labels must be a dict of strings to strings")
        if family._kind == MetricFamily.HISTOGRAM:
            if buckets is None:
                raise TritonModelException("a HISTOGRAM metric needs buckets (a list of ascending upper bounds)")
            buckets = [_metric_number(b, "a bucket bound") for b in buckets]
            if any(not isinstance(b, float) for b in buckets) or any(b <= a for a, b in zip(buckets, buckets[1:])):
                raise TritonModelException("histogram buckets must be finite and strictly ascending")
        elif buckets is not None:
            raise TritonModelException("buckets are for HISTOGRAM metrics only")
        self._id = None
        self._family = weakref.ref(family)
        self._kind = family._kind
        metric = next(_metric_ids)
        _metric_reply({"action": "metric", "family": family._id, "metric": metric, "labels": labels, "buckets": buckets})
        self._id = metric

    def _use(self, allowed, operation):
        if self._family() is None:
            raise TritonModelException("Invalid metric operation as the corresponding 'MetricFamily' has been deleted.")
        if self._kind not in allowed:
            kind = ("COUNTER", "GAUGE", "HISTOGRAM")[self._kind]
            raise TritonModelException(f"{operation}() is not supported on a {kind} metric")

    def increment(self, value):
        self._use((MetricFamily.COUNTER, MetricFamily.GAUGE), "increment")
        number = _metric_number(value, "increment()'s value")
        if self._kind == MetricFamily.COUNTER and (number == "NaN" or number == "-Inf" or (isinstance(number, float) and number < 0)):
            raise TritonModelException("a COUNTER metric cannot be incremented by a negative value")
        _metric_send({"action": "increment", "metric": self._id, "value": number})

    def set(self, value):
        self._use((MetricFamily.GAUGE,), "set")
        _metric_send({"action": "set", "metric": self._id, "value": _metric_number(value, "set()'s value")})

    def observe(self, value):
        self._use((MetricFamily.HISTOGRAM,), "observe")
        _metric_send({"action": "observe", "metric": self._id, "value": _metric_number(value, "observe()'s value")})

    def value(self):
        self._use((MetricFamily.COUNTER, MetricFamily.GAUGE), "value")
        value = _metric_reply({"action": "value", "metric": self._id})["value"]
        return float({"NaN": "nan", "+Inf": "inf", "-Inf": "-inf"}.get(value, value))

    def __del__(self):
        if getattr(self, "_id", None) is not None and _metric_send is not None:
            _metric_send({"action": "metric_delete", "metric": self._id})
