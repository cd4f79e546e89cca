#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus, tests/fuzz/corpus/*.json: small hand-shaped Kineto traces
(at most 8 KiB each, libFuzzer's -max_len) that between them reach every part of the reader and
the models: eager training on CUDA and ROCm, collectives, serving-engine steps (vLLM, SGLang,
ATOM, xDiT), CUDA/HIP graph replays and capture traces, legacy PyTorch <= 1.9 traces, B/E pairs,
odd times and ids, top-level metadata. Deterministic: the same files on every run, so the corpus
is committed as generated. Python 3 standard library only.

    python3 tests/fuzz/make_corpus.py [OUT_DIR]   # default: tests/fuzz/corpus next to this file

docs/testing.md says how the corpus is used; the formats are those of docs/trace-format.md.
"""

import json
import os
import sys

MAX_BYTES = 8192

HOST_PID, MAIN_TID, BWD_TID = 4242, 4242, 4300
GPU_PID, STREAM, COMM_STREAM = 0, 7, 20

H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936,
        "computeMajor": 9, "computeMinor": 0, "numSms": 132, "warpSize": 32}
MI300X = {"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 205822885888,
          "computeMajor": 9, "computeMinor": 4, "numSms": 304, "warpSize": 64}

# Real kernel names, shortened: the seeds must stay under 8 KiB.
GEMM_CUDA = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas"
GEMM_ROCM = "Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI32x32x8x1_SN_ISA942"
ADD_KERNEL = "void at::native::vectorized_elementwise_kernel<4, CUDAFunctor_add<c10::BFloat16> >"
NORM_KERNEL = "void at::native::vectorized_layer_norm_kernel<c10::BFloat16, float>"
FLASH_KERNEL = "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128> >"
NCCL_KERNEL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
RCCL_KERNEL = "ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)"


class Trace:
    """A Kineto document under construction: events in file order, times in microseconds."""

    def __init__(self, launch="cudaLaunchKernel", device=None, top=None, flows=True):
        self.events = []
        self.top = dict(top or {})
        if device is not None:
            self.top.setdefault("deviceProperties", [device])
        self.launch_name = launch
        self.flows = flows
        self.correlation = 100
        self.external = 1
        self.launch_config = False  # kernels carry grid, block, registers, shared memory

    def add(self, **event):
        self.events.append(event)
        return event

    def x(self, cat, name, ts, dur, args=None, pid=HOST_PID, tid=MAIN_TID):
        event = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
        if args is not None:
            event["args"] = args
        return self.add(**event)

    def meta(self):
        self.add(ph="M", name="process_name", pid=HOST_PID, tid=0, args={"name": "python3"})
        self.add(ph="M", name="process_labels", pid=GPU_PID, tid=0, args={"labels": "GPU 0"})
        self.add(ph="M", name="process_sort_index", pid=GPU_PID, tid=0, args={"sort_index": 16777216})
        self.add(ph="M", name="thread_name", pid=HOST_PID, tid=MAIN_TID,
                 args={"name": "thread 4242 (python3)"})
        self.add(ph="M", name="thread_name", pid=GPU_PID, tid=STREAM, args={"name": "stream 7 "})
        self.add(ph="M", name="thread_sort_index", pid=GPU_PID, tid=STREAM, args={"sort_index": 7})

    def op(self, name, ts, dur, dims=None, types=None, strides=None, concrete=None, seq=None,
           tid=MAIN_TID, extra=None):
        args = {"External id": self.external}
        self.external += 1
        if seq is not None:
            args["Sequence number"] = seq
            args["Fwd thread id"] = 1
        if dims is not None:
            args["Input Dims"] = dims
            args["Input type"] = types or ["c10::BFloat16"] * len(dims)
            if strides is not None:
                args["Input Strides"] = strides
            if concrete is not None:
                args["Concrete Inputs"] = concrete
        args.update(extra or {})
        return self.x("cpu_op", name, ts, dur, args, tid=tid)

    def gpu(self, cat, name, ts, dur, correlation, stream=STREAM, extra=None):
        args = {"External id": self.external - 1, "device": 0, "stream": stream,
                "correlation": correlation}
        if cat == "kernel" and self.launch_config:
            args.update({"registers per thread": 128, "shared memory": 49152,
                         "grid": [132, 1, 1], "block": [384, 1, 1]})
        args.update(extra or {})
        return self.x(cat, name, ts, dur, args, pid=GPU_PID, tid=stream)

    def launch(self, ts, kernel, gpu_ts, gpu_dur, cat="kernel", api=None, stream=STREAM,
               tid=MAIN_TID, extra=None, runtime_args=None):
        """A runtime call at `ts`, its GPU activity and the ac2g flow between them."""
        correlation = self.correlation
        self.correlation += 1
        args = {"External id": self.external - 1, "correlation": correlation}
        args.update(runtime_args or {})
        self.x("cuda_runtime", api or self.launch_name, ts, 4.5, args, tid=tid)
        self.gpu(cat, kernel, gpu_ts, gpu_dur, correlation, stream, extra)
        if self.flows:
            self.add(ph="s", id=correlation, pid=HOST_PID, tid=tid, ts=ts, cat="ac2g", name="ac2g")
            self.add(ph="f", id=correlation, pid=GPU_PID, tid=stream, ts=gpu_ts, cat="ac2g",
                     name="ac2g", bp="e")
        return correlation

    def python(self, name, ts, dur, pid_id, parent_id, tid=MAIN_TID):
        return self.x("python_function", name, ts, dur,
                      {"Python parent id": parent_id, "Python id": pid_id, "Python thread": 0},
                      tid=tid)

    def annotation(self, name, ts, dur, cat="user_annotation", tid=MAIN_TID):
        self.external += 1
        return self.x(cat, name, ts, dur, {"External id": self.external - 1}, tid=tid)

    def text(self, bare=False):
        events = self.events
        if bare:
            return json.dumps(events, separators=(",", ":"))
        doc = dict(self.top)
        doc["traceEvents"] = events
        return json.dumps(doc, separators=(",", ":"))


def linear_layer(t, ts, m, k, n, kernel, seq=None):
    """aten::linear -> aten::addmm -> launch -> GEMM kernel; returns the end time."""
    t.op("aten::linear", ts, 60, [[m, k], [n, k], [n]], seq=seq)
    t.op("aten::addmm", ts + 5, 50, [[n], [m, k], [k, n], [], []],
         ["c10::BFloat16"] * 3 + ["Scalar", "Scalar"], [[1], [k, 1], [1, k], [], []],
         ["", "", "", "1", "1"], seq=seq)
    t.launch(ts + 20, kernel, ts + 40, 80)
    return ts + 70


def eager_training(device, launch, gemm, memcpy_args=None, amd=False):
    t = Trace(launch=launch, device=device,
              top={"schemaVersion": 1, "record_shapes": 1,
                   ("hip_runtime_version" if amd else "cuda_runtime_version"): 60241134 if amd else 12040,
                   "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000})
    t.meta()
    for step in range(2):
        base = 1000.0 + step * 1200
        t.annotation(f"ProfilerStep#{step + 1}", base, 1100)
        t.launch_config = step == 0  # grid, block, registers on the first step's kernels only
        if step == 0:
            t.annotation("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", base + 2, 40)
            t.op("aten::copy_", base + 55, 50, [[8, 512], [8, 512]], ["long int", "long int"],
                 [[512, 1], [512, 1]], ["", ""])
            t.launch(base + 60, "Memcpy HtoD (Pageable -> Device)", base + 75, 20, cat="gpu_memcpy",
                     api="hipMemcpyWithStream" if amd else "cudaMemcpyAsync", extra=memcpy_args)
        t.python("nn.Module: BertLayer_0", base + 120, 600, 10 + step, 1)
        if step == 0:
            t.python("torch/nn/modules/linear.py(114): forward", base + 125, 200, 20, 10)
        end = linear_layer(t, base + 130, 4096, 768, 768, gemm, seq=step * 10 + 1)
        if step == 0:
            t.op("aten::layer_norm", end + 10, 40, [[8, 512, 768], [], [768], [768], [], []],
                 ["c10::BFloat16", "", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"],
                 seq=step * 10 + 2)
            t.launch(end + 20, NORM_KERNEL, end + 200, 30)
            t.x("cuda_runtime", "hipStreamSynchronize" if amd else "cudaStreamSynchronize",
                end + 100, 150, {"correlation": 9000})
            t.x("cuda_sync", "Stream Sync", end + 240, 8, {"stream": STREAM, "correlation": 9000},
                pid=GPU_PID, tid=STREAM)
            # The backward of the linear on the autograd thread.
            t.op("autograd::engine::evaluate_function: AddmmBackward0", end + 300, 120, seq=1,
                 tid=BWD_TID)
            t.op("aten::mm", end + 310, 40, [[4096, 768], [768, 768]], tid=BWD_TID)
            t.launch(end + 320, gemm, end + 400, 90, tid=BWD_TID)
        else:
            t.op("aten::add", end + 60, 30, [[8, 512, 768], [8, 512, 768], []],
                 ["c10::BFloat16", "c10::BFloat16", "Scalar"], concrete=["", "", "1"])
            t.launch(end + 70, ADD_KERNEL, end + 240, 12)
            t.x("cuda_runtime", "hipMalloc" if amd else "cudaMalloc", end + 360, 20,
                {"correlation": 9100})
            t.x("gpu_memset", "Memset (Device)", end + 500, 3, {"device": 0, "stream": STREAM},
                pid=GPU_PID, tid=STREAM)
    return t.text()


def nccl(launch, kernel, device, rank):
    t = Trace(launch=launch, device=device,
              top={"distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 8}})
    comm = {"Collective name": "allreduce", "In msg nelems": 4194304, "Out msg nelems": 4194304,
            "Group size": 8, "dtype": "BFloat16", "In split size": "[]", "Out split size": "[]",
            "Process Group Name": "0", "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]"}
    for i in range(2):
        base = 100.0 + 500 * i
        t.annotation(f"ProfilerStep#{i}", base, 480)
        linear_layer(t, base + 5, 2048, 1024, 1024, GEMM_CUDA)
        t.op("record_param_comms", base + 100, 80, [[4194304]], ["c10::BFloat16"], extra=comm)
        t.op("c10d::allreduce_", base + 102, 70, [[[4194304]], [], [], []],
             ["GenericList", "Object", "Object", "long int"])
        t.launch(base + 110, kernel, base + 130 + 20 * i, 200, api="cudaLaunchKernelExC",
                 stream=COMM_STREAM, extra=comm)
    return t.text()


def serving(step_names, graph=False, launch="cudaLaunchKernel", graph_api="cudaGraphLaunch",
            capture=None, device=H100, pseudo_ops=False, gpu_annotations=False,
            graph_kernels=(GEMM_CUDA, ADD_KERNEL, FLASH_KERNEL)):
    """Engine steps (user annotations) around a forward; graph=True replays a CUDA/HIP graph."""
    t = Trace(launch=launch, device=device)
    t.meta()
    if capture:
        capture(t)
    base = 5000.0
    for i, name in enumerate(step_names):
        t.annotation(name, base, 300)
        if gpu_annotations:
            t.annotation(name, base + 50, 200, cat="gpu_user_annotation", tid=STREAM)
        op_name = f"sglang_profiler::forward_{i + 1}" if pseudo_ops else "aten::linear"
        if graph:
            correlation = t.correlation
            t.correlation += 1
            t.x("cuda_runtime", graph_api, base + 10, 12,
                {"External id": 0, "cbid": 311, "correlation": correlation, "graph id": 1})
            for k, kernel in enumerate(graph_kernels):
                t.gpu("kernel", kernel, base + 30 + 40 * k, 30, correlation,
                      extra={"graph node id": 10 + k, "graph id": 1})
        else:
            t.op(op_name, base + 10, 100, [[4 * (i + 1), 4096], [4096, 4096]])
            t.launch(base + 20, GEMM_CUDA, base + 60, 50)
            t.op("aten::_scaled_dot_product_flash_attention", base + 120, 80,
                 [[1, 32, 4 * (i + 1), 128]] * 3 + [[]], concrete=["", "", "", "0.0"])
            t.launch(base + 130, FLASH_KERNEL, base + 150, 60)
        base += 400
    return t.text()


def vllm_capture(t, batches=(8,)):
    """A vLLM capture run: _dummy_run frames with capture annotations and stream captures (one
    graph per batch size; a capture trace of one graph aligns with every replay of it)."""
    for i, batch in enumerate(batches):
        base = 100.0 + 1500 * i
        t.python("vllm/v1/worker/gpu_model_runner.py(2211): _dummy_run", base, 1200, 100 + i, 1)
        t.annotation(f"capture_{batch}_FULL", base + 5, 1100)
        t.x("cuda_runtime", "cudaStreamBeginCapture", base + 10, 5, {"correlation": 50 + i})
        t.op("aten::linear", base + 20, 200, [[batch, 4096], [4096, 4096]])
        for k, _ in enumerate([GEMM_CUDA, ADD_KERNEL, FLASH_KERNEL]):
            t.x("cuda_runtime", "cudaLaunchKernel", base + 30 + 50 * k, 6,
                {"External id": t.external - 1, "correlation": 60 + 10 * i + k})
        t.x("cuda_runtime", "cudaStreamEndCapture", base + 900, 5, {"correlation": 80 + i})
        t.x("cuda_runtime", "cudaGraphInstantiate", base + 910, 50, {"correlation": 90 + i})


def hip_capture(t):
    """A ROCm capture: the launch calls name their kernels (args.kernel)."""
    base = 100.0
    t.python("sglang/srt/model_executor/cuda_graph_runner.py(400): capture_one_batch_size",
             base - 10, 500, 100, 1)  # the captured ops' parent, outside the window
    t.x("cuda_runtime", "hipStreamBeginCapture", base, 5, {"correlation": 50})
    t.op("aten::mm", base + 10, 250, [[8, 4096], [4096, 4096]])
    for k, kernel in enumerate([GEMM_ROCM, ADD_KERNEL, "attn_fwd"]):
        t.x("cuda_runtime", "hipExtModuleLaunchKernel" if k == 0 else "hipLaunchKernel",
            base + 20 + 60 * k, 6, {"correlation": 60 + k, "kernel": kernel})
    t.x("cuda_runtime", "hipStreamEndCapture", base + 400, 5, {"correlation": 80})


def legacy():
    """PyTorch <= 1.9: old categories, "external id", "stream N" tids, digit-string pids."""
    events = [
        {"ph": "X", "cat": "Operator", "name": "aten::conv2d", "pid": "1234", "tid": "1234",
         "ts": 1682725898236567, "dur": 120, "args": {"external id": 7, "Input dims": [[8, 3, 224, 224], [64, 3, 7, 7]]}},
        {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": "1234", "tid": "1234",
         "ts": 1682725898236580, "dur": 8, "args": {"external id": 7, "correlation": 31}},
        {"ph": "X", "cat": "Kernel", "name": "implicit_convolve_sgemm", "pid": 0, "tid": "stream 7",
         "ts": 1682725898236600, "dur": 300, "args": {"external id": 7, "correlation": 31, "device": 0}},
        {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0,
         "tid": "stream 7", "ts": 1682725898236950, "dur": 20, "args": {"external id": 8}},
        {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": "stream 7",
         "ts": 1682725898236990, "dur": 2, "args": {}},
        {"ph": "X", "cat": "Python", "name": "train.py(10): <module>", "pid": "1234", "tid": "1234",
         "ts": 1682725898236500, "dur": 800},
        {"ph": "s", "cat": "async", "id": 31, "pid": 1234, "tid": 1234, "ts": 1682725898236580, "name": "launch"},
        {"ph": "f", "cat": "async", "id": 31, "pid": 0, "tid": "stream 7", "ts": 1682725898236600, "name": "launch", "bp": "e"},
    ]
    return json.dumps({"schemaVersion": 0, "traceEvents": events}, separators=(",", ":"))


def phases():
    """B/E pairs (nested, unmatched, unclosed), instants, counters, the other phases."""
    t = Trace()
    t.add(ph="B", cat="cpu_op", name="aten::outer", pid=1, tid=1, ts=10)
    t.add(ph="B", cat="cpu_op", name="aten::inner", pid=1, tid=1, ts=12)
    t.add(ph="X", cat="cuda_runtime", name="cudaLaunchKernel", pid=1, tid=1, ts=13, dur=2,
          args={"correlation": 5})
    t.add(ph="E", pid=1, tid=1, ts=20)
    t.add(ph="E", pid=1, tid=1, ts=30)
    t.add(ph="E", pid=1, tid=1, ts=31)  # unmatched
    t.add(ph="B", cat="user_annotation", name="never closed", pid=1, tid=2, ts=5)
    t.add(ph="E", pid=1, tid=3, ts=4)
    t.add(ph="B", cat="cpu_op", name="backwards", pid=1, tid=4, ts=50)
    t.add(ph="E", pid=1, tid=4, ts=40)  # negative dur
    t.add(ph="X", cat="kernel", name="k", pid=0, tid=7, ts=14, dur=5,
          args={"correlation": 5, "device": 0, "stream": 7})
    t.add(ph="i", cat="cpu_instant_event", name="mark", pid=1, tid=1, ts=15, s="t")
    t.add(ph="I", name="global", pid=1, tid=1, ts=16, s="g")
    t.add(ph="C", name="memory", pid=1, ts=17, args={"allocated": 10})
    for ph in "benPONDRcpvt":
        t.add(ph=ph, name="other " + ph, pid=1, tid=1, ts=18, id=1, cat="misc")
    t.add(ph="Q", name="unknown phase", pid=1, tid=1, ts=19)
    t.add(ph="XX", name="long phase", pid=1, tid=1, ts=19)
    t.add(name="no phase", pid=1, tid=1, ts=19)
    t.add(ph="X", name="no ts", pid=1, tid=1, dur=3)
    t.add(ph="X", name="no dur", pid=1, tid=1, ts=3)
    t.add(ph="s", name="no id", pid=1, tid=1, ts=3, cat="ac2g")
    return t.text()


def odd_values():
    """Times and ids at the edges of what the reader takes (docs/trace-format.md §5-§6)."""
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "decimals", "pid": 1, "tid": 1, "ts": 1419247333291.708, "dur": 5.633},
        {"ph": "X", "cat": "cpu_op", "name": "exponent", "pid": 1, "tid": 1, "ts": 1.5e3, "dur": 2E-3},
        {"ph": "X", "cat": "cpu_op", "name": "sub ns", "pid": 1, "tid": 1, "ts": 0.0000004, "dur": 1.0000005},
        {"ph": "X", "cat": "cpu_op", "name": "negative", "pid": 1, "tid": 1, "ts": -0.5, "dur": -3},
        {"ph": "X", "cat": "cpu_op", "name": "huge ts", "pid": 1, "tid": 1, "ts": 9.3e15, "dur": 1},
        {"ph": "X", "cat": "cpu_op", "name": "huge end", "pid": 1, "tid": 1, "ts": 4611686018427387, "dur": 4611686018427387},
        {"ph": "X", "cat": "cpu_op", "name": "string ts", "pid": 1, "tid": 1, "ts": "10", "dur": 1},
        {"ph": "X", "cat": "cpu_op", "name": "null dur", "pid": 1, "tid": 1, "ts": 10, "dur": None},
        {"ph": "X", "cat": "cpu_op", "name": "float pid", "pid": 7.0, "tid": 1e3, "ts": 10, "dur": 1},
        {"ph": "X", "cat": "cpu_op", "name": "bad pid", "pid": 7.5, "tid": True, "ts": 10, "dur": 1},
        {"ph": "X", "cat": "cpu_op", "name": "string ids", "pid": "Spans", "tid": "", "ts": 11, "dur": 1},
        {"ph": "X", "cat": 5, "name": ["not", "a", "string"], "pid": 1, "tid": 1, "ts": 12, "dur": 1},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 13, "dur": 1,
         "args": {"correlation": 18446744073709551615, "device": -1, "stream": 2147483648,
                  "grid": [1, 2, 3, 4], "block": "none", "bytes": 1e300, "External id": -9223372036854775808}},
        {"ph": "s", "id": "0x1F", "pid": 1, "tid": 1, "ts": 13, "cat": "ac2g"},
        {"ph": "f", "id": "31", "pid": 0, "tid": 7, "ts": 13, "cat": "ac2g", "bp": "e"},
        {"ph": "s", "id": 1.5, "pid": 1, "tid": 1, "ts": 13, "cat": "ac2g"},
        {"ph": "X", "cat": "cpu_op", "name": "nested args", "pid": 1, "tid": 1, "ts": 14, "dur": 1,
         "args": {"Input Dims": [[[[[1]]]], [], [[2, 3], [4]]], "Input type": ["", None, 3],
                  "Concrete Inputs": ["\"q\\u00e9\"", "\\", "[1, 2]"], "Sequence number": "7"}},
        {"ph": "X", "cat": "cpu_op", "name": "caf\u00e9 \u2603 \U0001F600", "pid": 1, "tid": 1, "ts": 15, "dur": 1},
        {"ph": "X", "cat": "cpu_op", "name": "lone surrogate \ud800", "pid": 1, "tid": 1, "ts": 16, "dur": 1},
        {"ph": "X", "cat": "cpu_op", "name": "ESCAPED", "pid": 1, "tid": 1, "ts": 17, "dur": 1},
        [1, 2, 3],
        "not an object",
        None,
    ]
    # Non-ASCII written as UTF-8 bytes (the lone surrogate: invalid UTF-8), and once escaped.
    text = json.dumps({"traceEvents": events}, separators=(",", ":"), ensure_ascii=False)
    return text.replace("ESCAPED", "\\u00e9\\ud83d\\ude00 \\udc00 \\u0000 \\\"")


def top_level():
    """Top-level metadata: odd device properties, two traceEvents arrays, keys of every type."""
    events1 = [{"ph": "X", "cat": "kernel", "name": "Cijk_Alik_Bljk_HHS_BH_MT64x64x32_ISA90a", "pid": 2, "tid": 1,
                "ts": 10, "dur": 5, "args": {"correlation": 1}}]
    events2 = [{"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 9, "tid": 9,
                "ts": 8, "dur": 1, "args": {"correlation": 1}}]
    props = [{"id": 3, "name": "AMD Instinct MI250X", "totalGlobalMem": 1e36, "computeMajor": 9.5,
              "numSms": 220, "warpSize": 64}, {"name": "second"}, 7, {"id": "x"}]
    text = json.dumps({"schemaVersion": 1, "traceEvents": events1, "deviceProperties": props,
                       "distributedInfo": {"backend": "rccl", "rank": 3, "world_size": 4, "extra": [1, {}]},
                       "metadata": {"nested": True}, "list": [1, 2], "flag": False, "nothing": None,
                       "number": 1.25e-7, "cuda_runtime_version": 12040}, separators=(",", ":"))
    # Legal JSON, duplicate key: the events of both arrays are read.
    return text[:-1] + ',"traceEvents":' + json.dumps(events2, separators=(",", ":")) + "}"


def memcpy_kinds():
    t = Trace(device=H100)
    names = ["Memcpy HtoD (Pageable -> Device)", "Memcpy DtoH (Device -> Pinned)",
             "Memcpy DtoD (Device -> Device)", "Memcpy HtoH (Pinned -> Pinned)",
             "Memcpy PtoP (Device -> Device)", "Memcpy HtoD (Managed -> Array)", "Memcpy",
             "CopyHostToDevice"]
    for i, name in enumerate(names):
        if i % 3 == 0:
            t.op("aten::copy_", 10 + 100 * i, 60, [[1024, 1024], [1024, 1024]], ["float", "float"])
        t.launch(15 + 100 * i, name, 40 + 100 * i, 20, cat="gpu_memcpy", api="cudaMemcpyAsync",
                 extra={"bytes": 4194304, "kind": "HtoD"})
    t.x("cuda_runtime", "cudaMemcpy", 900, 50, {"correlation": 700})
    for i, name in enumerate(["MEMORY_COPY_HOST_TO_DEVICE", "__amd_rocclr_copyBufferRectAligned.kd",
                              "__amd_rocclr_fillBufferAligned", "cross_device_reduce_2stage"]):
        t.launch(1000 + 20 * i, name, 1010 + 20 * i, 5)
    t.launch(1100, "Memset (Device)", 1110, 2, cat="gpu_memset", api="cudaMemsetAsync")
    return t.text()


def flowless(key):
    """No ac2g flow: links by correlation, or by External id when the launches carry none."""
    t = Trace(flows=False, device=H100)
    for i in range(4):
        t.op("aten::mul", 10 + 50 * i, 30, [[64], [64]])
        args = {"correlation": 10 + i} if key == "correlation" else {"External id": t.external - 1}
        t.x("cuda_runtime", "cudaLaunchKernel", 15 + 50 * i, 5, args)
        gpu_args = dict(args, device=0, stream=7 + i % 2)
        t.x("kernel", f"mul_kernel_{i % 2}", 20 + 50 * i, 10 + i, gpu_args, pid=0, tid=7 + i % 2)
    return t.text()


def resnet():
    t = Trace(device=MI300X, launch="hipLaunchKernel")
    t.python("nn.Module: ResNet_0", 0, 5000, 1, 0)
    t.python("nn.Module: Bottleneck_0", 10, 2000, 2, 1)
    ts = 20.0
    for kernel_size, channels in [(1, 64), (3, 64), (1, 256), (1, 256)]:
        t.op("aten::convolution", ts, 100,
             [[32, channels, 56, 56], [channels, channels, kernel_size, kernel_size], [], [], [], [], [], [], []],
             ["float"] * 2 + [""] + ["ScalarList"] * 3 + ["Scalar"] * 3,
             concrete=["", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1"])
        t.launch(ts + 10, f"igemm_fwd_gtcx35_nhwc_fp32_bx0_ex1_bt64x64x16_k{kernel_size}", ts + 30, 50)
        ts += 120
    t.op("aten::add_", ts, 40, [[32, 256, 56, 56], [32, 256, 56, 56], []], ["float", "float", "Scalar"])
    t.launch(ts + 5, ADD_KERNEL, ts + 20, 10)
    t.op("aten::max_pool2d", ts + 100, 40, [[32, 64, 112, 112], [], [], [], [], []])
    t.launch(ts + 105, "void at::native::max_pool_forward_nchw<float>", ts + 130, 20)
    t.op("aten::batch_norm", ts + 200, 40, [[32, 64, 112, 112], [64], [64], [64], [64]])
    t.launch(ts + 205, "void MIOpenBatchNormFwdTrainSpatial", ts + 250, 20)
    return t.text()


def transformer_inference():
    t = Trace(device=H100)
    t.python("nn.Module: LlamaForCausalLM_0", 0, 9000, 1, 0)
    ts = 10.0
    for layer in range(1):
        t.python(f"nn.Module: LlamaDecoderLayer_{layer}", ts, 3000, 10 + layer, 1)
        t.op("aten::rms_norm", ts + 5, 30, [[1, 128, 4096], [], [4096], []])
        t.launch(ts + 10, NORM_KERNEL, ts + 50, 10)
        ts = linear_layer(t, ts + 40, 128, 4096, 12288, GEMM_CUDA)
        t.op("aten::_scaled_dot_product_flash_attention", ts, 60, [[1, 32, 128, 128]] * 3,
             concrete=["", "", ""])
        t.launch(ts + 10, FLASH_KERNEL, ts + 40, 90)
        t.op("aten::silu", ts + 100, 20, [[1, 128, 11008]], ["c10::BFloat16"])
        t.launch(ts + 105, "void at::native::vectorized_elementwise_kernel<4, silu_kernel>", ts + 140, 15)
        t.op("aten::mul", ts + 130, 20, [[1, 128, 11008], [1, 128, 11008]])
        t.launch(ts + 135, "fused_moe_kernel_fp8_e4m3", ts + 160, 25)
        ts = linear_layer(t, ts + 160, 128, 11008, 4096, GEMM_CUDA) + 50
    t.op("aten::item", ts, 200, [[]])
    t.op("aten::_local_scalar_dense", ts + 10, 180, [[]])
    t.launch(ts + 20, "Memcpy DtoH (Device -> Pageable)", ts + 100, 5, cat="gpu_memcpy",
             api="cudaMemcpyAsync")
    t.x("cuda_runtime", "cudaStreamSynchronize", ts + 30, 150, {"correlation": 999})
    return t.text()


def vllm_unfused_moe():
    """vLLM GPT-OSS's eager MoE layer: the up / down matmul_ogs GEMMs and the finalize kernel
    that inference mode's pseudo-op pass splits into pseudo ops (model/pseudo_ops.hpp)."""
    t = Trace(launch="hipModuleLaunchKernel")
    t.op("vllm::moe_forward", 0, 1000, [[32, 3072], [32, 32], [], []],
         ["c10::BFloat16", "c10::BFloat16", "", ""], concrete=["", "", "", ""])
    t.op("TopK", 10, 50, [[32, 32], []], ["c10::BFloat16", "Scalar"], concrete=["", "4"])
    t.launch(20, "topk_kernel", 1000, 20)
    t.launch(100, "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu", 2000, 50)
    t.launch(200, "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1", 2100, 50)
    t.launch(300, "_finalize_matmul_scatter_bf16", 2200, 5)
    return t.text()


def xpu():
    t = Trace(launch="zeCommandListAppendLaunchKernel")
    t.op("aten::matmul", 10, 100, [[64, 64], [64, 64]], ["float", "float"])
    t.x("xpu_runtime", "zeCommandListAppendLaunchKernel", 20, 5, {"correlation": 1})
    t.x("xpu_driver", "zeEventHostSynchronize", 40, 50, {"correlation": 2})
    t.x("kernel", "gemm_kernel", 30, 20, {"correlation": 1, "device": 0, "queue": 3}, pid=0, tid=3)
    t.add(ph="s", id=1, pid=HOST_PID, tid=MAIN_TID, ts=20, cat="ac2g", name="ac2g")
    t.add(ph="f", id=1, pid=0, tid=3, ts=30, cat="ac2g", name="ac2g", bp="e")
    return t.text(bare=True)


def multi_thread_streams():
    """Several host threads and streams, overlapping kernels, a kernel launched twice."""
    t = Trace(device=H100)
    for tid in (1, 2, 3):
        for i in range(2):
            ts = 100.0 * i + tid
            t.op("aten::bmm", ts, 50, [[16, 64, 64], [16, 64, 64]], tid=tid)
            t.launch(ts + 5, f"bmm_kernel_{tid}", ts + 20 + 7 * tid, 60, stream=10 + tid, tid=tid)
    t.add(ph="s", id=t.correlation - 1, pid=HOST_PID, tid=1, ts=500, cat="ac2g", name="ac2g")
    t.add(ph="f", id=t.correlation - 1, pid=GPU_PID, tid=11, ts=501, cat="ac2g", name="ac2g", bp="e")
    t.x("cuda_runtime", "cudaStreamWaitEvent", 600, 3, {"correlation": 5000}, tid=2)
    t.x("cuda_runtime", "cudaEventRecord", 601, 3, {"correlation": 5001}, tid=2)
    return t.text()


def empty_ish(kind):
    if kind == "no_events":
        return '{"traceEvents":[]}'
    if kind == "metadata_only":
        return json.dumps({"traceEvents": [{"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "x"}}],
                           "deviceProperties": [H100]}, separators=(",", ":"))
    raise ValueError(kind)


SEEDS = {
    "eager_training_cuda.json": lambda: eager_training(H100, "cudaLaunchKernel", GEMM_CUDA),
    "eager_training_rocm.json": lambda: eager_training(MI300X, "hipLaunchKernel", GEMM_ROCM,
                                                       {"kind": "HtoD"}, amd=True),
    "nccl_allreduce.json": lambda: nccl("cudaLaunchKernel", NCCL_KERNEL, H100, 0),
    "rccl_generic_kernel.json": lambda: nccl("hipLaunchKernel", RCCL_KERNEL, MI300X, 5),
    "vllm_native_steps.json": lambda: serving(
        ["execute_context_1(5)_generation_2(2)", "execute_context_0(0)_generation_3(3)",
         "execute_context_2(300)_generation_0(0)"]),
    "vllm_detailed_steps.json": lambda: serving(
        ["execute_104_context_1(sq100sk100sqsq10000sqsk10000)_generation_4(sq4sk400sqsq4sqsk400)",
         "execute_4_context_0(sq0sk0sqsq0sqsk0)_generation_4(sq4sk404sqsq4sqsk404)",
         "execute_x_context_1(sq)_generation_(sq1)"]),
    "sglang_steps.json": lambda: serving(
        ["step[EXTEND bs=2 toks=100]", "step[DECODE bs=4]", "step[MIXED bs=3 toks=57]",
         "step[DECODE bs=4 c=0 g=4 g_sq=4 g_sk=800 g_sqsq=4 g_sqsk=800 sqsq=4]"],
        pseudo_ops=True),
    "atom_steps.json": lambda: serving(
        ["prefill[bs=2 tok=100]", "decode[bs=4 tok=4 sk=800 sqsq=4 sqsk=800]",
         "prefill[bs=1 tok=7] trailing] text", "decode[bs=117/128 tok=117]\nsecond line"]),
    "diffusion_steps.json": lambda: serving(
        ["execute_diffusion_2_1024x1024", "execute_diffusion_2_1024x1024", "execute_diffusion_1_x"],
        gpu_annotations=True),
    "vllm_graph_replay_with_capture.json": lambda: serving(
        ["execute_context_0(0)_generation_4(4)", "execute_context_0(0)_generation_8(8)",
         "execute_context_0(0)_generation_16(16)"], graph=True, capture=vllm_capture),
    "sglang_graph_replay.json": lambda: serving(
        ["step[DECODE bs=4 toks=4]", "step[DECODE bs=8 toks=8]"], graph=True),
    "hip_graph_replay_with_capture.json": lambda: serving(
        ["decode[bs=8 tok=8]", "decode[bs=2 tok=2]"], graph=True, launch="hipLaunchKernel",
        graph_api="hipGraphLaunch", capture=hip_capture, device=MI300X,
        graph_kernels=(GEMM_ROCM, ADD_KERNEL, "attn_fwd")),
    "capture_piecewise.json": lambda: serving(
        ["capture_8_PIECEWISE", "capture_16_FULL\nrest"],
        capture=lambda t: vllm_capture(t, batches=(8, 4))),
    "legacy_pytorch_1_9.json": legacy,
    "phases_begin_end.json": phases,
    "odd_values.json": odd_values,
    "top_level_metadata.json": top_level,
    "memcpy_kinds.json": memcpy_kinds,
    "flowless_correlation.json": lambda: flowless("correlation"),
    "flowless_external_id.json": lambda: flowless("external"),
    "resnet_convolutions.json": resnet,
    "transformer_inference.json": transformer_inference,
    "vllm_unfused_moe.json": vllm_unfused_moe,
    "xpu_bare_array.json": xpu,
    "multi_thread_streams.json": multi_thread_streams,
    "no_events.json": lambda: empty_ish("no_events"),
    "metadata_only.json": lambda: empty_ish("metadata_only"),
}


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out_dir, exist_ok=True)
    for name, make in sorted(SEEDS.items()):
        text = make()
        data = text.encode("utf-8", "surrogatepass")
        if len(data) > MAX_BYTES:
            sys.exit(f"make_corpus.py: {name} is {len(data)} bytes, over {MAX_BYTES}")
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
        print(f"{len(data):5d}  {name}")


if __name__ == "__main__":
    main()
