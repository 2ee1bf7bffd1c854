package solver

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// This file provides the 20 functions that highs.wasm imports from module
// "a" (names are minified; wasmImportNames maps them back). They replace
// the emscripten JS glue: a clock, heap growth, abort/exception/exit traps
// that become Go errors, and a tiny in-memory file system so that HiGHS can
// write (and read) model files and print its log.

// instKey is the context key under which a call carries its *instance, so
// that host functions reach the per-instance state.
type instKey struct{}

func instanceFrom(ctx context.Context) *instance {
	in, _ := ctx.Value(instKey{}).(*instance)
	return in
}

// errInterrupted is panicked by host functions when the solve's context is
// done; the call unwinds with it and the instance is discarded.
var errInterrupted = errors.New("interrupted")

// abortError is panicked by host functions for abort(), exit() and C++
// exceptions.
type abortError struct{ msg string }

// Error returns the abort reason.
func (e *abortError) Error() string { return e.msg }

// WASI / emscripten errno values (not Linux's).
const (
	errnoBADF  = 8
	errnoINVAL = 28
	errnoNOENT = 44
	errnoNOTTY = 59
	errnoSPIPE = 70
)

// musl open(2) flags.
const (
	oACCMODE = 3
	oCREAT   = 0o100
	oTRUNC   = 0o1000
	oAPPEND  = 0o2000
)

type hostFunc struct {
	fn      api.GoModuleFunc
	params  []api.ValueType
	results []api.ValueType
}

var (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
	f64 = api.ValueTypeF64
)

func hostFuncs() map[string]hostFunc {
	return map[string]hostFunc{
		"__cxa_throw":                         {hostCxaThrow, []api.ValueType{i32, i32, i32}, nil},
		"exit":                                {hostExit, []api.ValueType{i32}, nil},
		"proc_exit":                           {hostExit, []api.ValueType{i32}, nil},
		"_abort_js":                           {hostAbort, nil, nil},
		"emscripten_get_now":                  {hostGetNow, nil, []api.ValueType{f64}},
		"emscripten_date_now":                 {hostDateNow, nil, []api.ValueType{f64}},
		"clock_time_get":                      {hostClockTimeGet, []api.ValueType{i32, i64, i32}, []api.ValueType{i32}},
		"emscripten_resize_heap":              {hostResizeHeap, []api.ValueType{i32}, []api.ValueType{i32}},
		"_setitimer_js":                       {hostSetitimer, []api.ValueType{i32, f64}, []api.ValueType{i32}},
		"_tzset_js":                           {hostTzset, []api.ValueType{i32, i32, i32, i32}, nil},
		"environ_get":                         {hostEnvironGet, []api.ValueType{i32, i32}, []api.ValueType{i32}},
		"environ_sizes_get":                   {hostEnvironSizesGet, []api.ValueType{i32, i32}, []api.ValueType{i32}},
		"fd_write":                            {hostFdWrite, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}},
		"fd_read":                             {hostFdRead, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}},
		"fd_close":                            {hostFdClose, []api.ValueType{i32}, []api.ValueType{i32}},
		"fd_seek":                             {hostFdSeek, []api.ValueType{i32, i64, i32, i32}, []api.ValueType{i32}},
		"__syscall_openat":                    {hostOpenat, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}},
		"__syscall_fcntl64":                   {hostFcntl, []api.ValueType{i32, i32, i32}, []api.ValueType{i32}},
		"__syscall_ioctl":                     {hostIoctl, []api.ValueType{i32, i32, i32}, []api.ValueType{i32}},
		"_emscripten_runtime_keepalive_clear": {func(context.Context, api.Module, []uint64) {}, nil, nil},
	}
}

// instantiateHost registers module "a" in rt.
func instantiateHost(ctx context.Context, rt wazero.Runtime) error {
	funcs := hostFuncs()
	b := rt.NewHostModuleBuilder(wasmImportModule)
	for min, sym := range wasmImportNames {
		h, ok := funcs[sym]
		if !ok {
			return fmt.Errorf("no host function for import %s.%s (%s)", wasmImportModule, min, sym)
		}
		b.NewFunctionBuilder().WithGoModuleFunction(h.fn, h.params, h.results).WithName(sym).Export(min)
	}
	_, err := b.Instantiate(ctx)
	return err
}

func hostAbortf(ctx context.Context, format string, args ...any) {
	err := &abortError{msg: fmt.Sprintf(format, args...)}
	if in := instanceFrom(ctx); in != nil {
		in.abortErr = err
	}
	panic(err)
}

func hostCxaThrow(ctx context.Context, mod api.Module, stack []uint64) {
	// An Itanium std::type_info is {vtable*, const char* name}; the mangled
	// name says what was thrown (e.g. St9bad_alloc).
	typ := api.DecodeU32(stack[1])
	name := "?"
	if p, ok := mod.Memory().ReadUint32Le(typ + 4); ok {
		name = readCString(mod.Memory(), p, 256)
	}
	hostAbortf(ctx, "uncaught C++ exception of type %s", name)
}

func hostExit(ctx context.Context, _ api.Module, stack []uint64) {
	hostAbortf(ctx, "exit(%d)", api.DecodeI32(stack[0]))
}

func hostAbort(ctx context.Context, _ api.Module, _ []uint64) {
	hostAbortf(ctx, "abort()")
}

// checkInterrupt is called from the clock functions, which HiGHS reads
// continually while it solves: when the context of the call is done the
// solve unwinds.
func checkInterrupt(in *instance) {
	if in != nil && in.done != nil {
		select {
		case <-in.done:
			panic(errInterrupted)
		default:
		}
	}
}

// monotonicMs returns milliseconds since the instance was created.
func monotonicMs(in *instance) float64 {
	var t0 time.Time
	if in != nil {
		t0 = in.created
	} else {
		t0 = processStart
	}
	return float64(time.Since(t0).Nanoseconds()) / 1e6
}

var processStart = time.Now()

func hostGetNow(ctx context.Context, _ api.Module, stack []uint64) {
	in := instanceFrom(ctx)
	checkInterrupt(in)
	stack[0] = api.EncodeF64(monotonicMs(in))
}

func hostDateNow(ctx context.Context, _ api.Module, stack []uint64) {
	checkInterrupt(instanceFrom(ctx))
	stack[0] = api.EncodeF64(float64(time.Now().UnixNano()) / 1e6)
}

func hostClockTimeGet(ctx context.Context, mod api.Module, stack []uint64) {
	in := instanceFrom(ctx)
	checkInterrupt(in)
	clk := api.DecodeU32(stack[0])
	ptr := api.DecodeU32(stack[2])
	var ns int64
	switch clk {
	case 0: // realtime
		ns = time.Now().UnixNano()
	case 1, 2, 3: // monotonic, process and thread CPU time (as the JS glue does)
		t0 := processStart
		if in != nil {
			t0 = in.created
		}
		ns = time.Since(t0).Nanoseconds()
	default:
		stack[0] = errnoINVAL
		return
	}
	if !mod.Memory().WriteUint64Le(ptr, uint64(ns)) {
		hostAbortf(ctx, "clock_time_get: bad pointer %#x", ptr)
	}
	stack[0] = 0
}

// heapMax is emscripten's getHeapMax() for this build (2 GiB).
const heapMax = 2 << 30

func hostResizeHeap(ctx context.Context, mod api.Module, stack []uint64) {
	// Same growth policy as emscripten's JS: over-allocate by 20% (capped
	// at +96 MiB), retrying with smaller over-allocation on failure.
	mem := mod.Memory()
	old := uint64(mem.Size())
	req := uint64(api.DecodeU32(stack[0]))
	stack[0] = 0
	if req > heapMax {
		return
	}
	for cutDown := 1; cutDown <= 4; cutDown *= 2 {
		over := uint64(float64(old) * (1 + 0.2/float64(cutDown)))
		over = min(over, req+100663296)
		size := max(req, over)
		size = (size + 65535) &^ 65535
		size = min(size, heapMax)
		if size <= old {
			stack[0] = 1
			return
		}
		if _, ok := mem.Grow(uint32((size - old) / 65536)); ok {
			stack[0] = 1
			return
		}
	}
}

func hostSetitimer(_ context.Context, _ api.Module, stack []uint64) {
	// Timers (alarm/setitimer) are not used by HiGHS's solve path; accept
	// and ignore them, as a JS host with no event loop turn would.
	stack[0] = 0
}

func hostTzset(_ context.Context, mod api.Module, stack []uint64) {
	mem := mod.Memory()
	mem.WriteUint32Le(api.DecodeU32(stack[0]), 0) // timezone offset (UTC)
	mem.WriteUint32Le(api.DecodeU32(stack[1]), 0) // no daylight saving
	mem.Write(api.DecodeU32(stack[2]), []byte("UTC\x00"))
	mem.Write(api.DecodeU32(stack[3]), []byte("UTC\x00"))
}

func hostEnvironGet(_ context.Context, _ api.Module, stack []uint64) {
	stack[0] = 0 // empty environment
}

func hostEnvironSizesGet(_ context.Context, mod api.Module, stack []uint64) {
	mem := mod.Memory()
	mem.WriteUint32Le(api.DecodeU32(stack[0]), 0)
	mem.WriteUint32Le(api.DecodeU32(stack[1]), 0)
	stack[0] = 0
}

func hostFdWrite(ctx context.Context, mod api.Module, stack []uint64) {
	in := instanceFrom(ctx)
	fd := api.DecodeI32(stack[0])
	iov, iovcnt, pnum := api.DecodeU32(stack[1]), api.DecodeU32(stack[2]), api.DecodeU32(stack[3])
	mem := mod.Memory()
	total := uint32(0)
	for i := uint32(0); i < iovcnt; i++ {
		ptr, ok1 := mem.ReadUint32Le(iov + 8*i)
		n, ok2 := mem.ReadUint32Le(iov + 8*i + 4)
		if !ok1 || !ok2 {
			stack[0] = errnoINVAL
			return
		}
		data, ok := mem.Read(ptr, n)
		if !ok {
			stack[0] = errnoINVAL
			return
		}
		if errno := in.fsWrite(fd, data); errno != 0 {
			stack[0] = uint64(errno)
			return
		}
		total += n
	}
	mem.WriteUint32Le(pnum, total)
	stack[0] = 0
}

func hostFdRead(ctx context.Context, mod api.Module, stack []uint64) {
	in := instanceFrom(ctx)
	fd := api.DecodeI32(stack[0])
	iov, iovcnt, pnum := api.DecodeU32(stack[1]), api.DecodeU32(stack[2]), api.DecodeU32(stack[3])
	mem := mod.Memory()
	total := uint32(0)
	for i := uint32(0); i < iovcnt; i++ {
		ptr, ok1 := mem.ReadUint32Le(iov + 8*i)
		n, ok2 := mem.ReadUint32Le(iov + 8*i + 4)
		if !ok1 || !ok2 {
			stack[0] = errnoINVAL
			return
		}
		buf, ok := mem.Read(ptr, n)
		if !ok {
			stack[0] = errnoINVAL
			return
		}
		got, errno := in.fsRead(fd, buf)
		if errno != 0 {
			stack[0] = uint64(errno)
			return
		}
		total += uint32(got)
		if uint32(got) < n {
			break
		}
	}
	mem.WriteUint32Le(pnum, total)
	stack[0] = 0
}

func hostFdClose(ctx context.Context, _ api.Module, stack []uint64) {
	stack[0] = uint64(instanceFrom(ctx).fsClose(api.DecodeI32(stack[0])))
}

func hostFdSeek(ctx context.Context, mod api.Module, stack []uint64) {
	in := instanceFrom(ctx)
	fd := api.DecodeI32(stack[0])
	off := int64(stack[1])
	whence := api.DecodeI32(stack[2])
	ptr := api.DecodeU32(stack[3])
	pos, errno := in.fsSeek(fd, off, whence)
	if errno != 0 {
		stack[0] = uint64(errno)
		return
	}
	mod.Memory().WriteUint64Le(ptr, uint64(pos))
	stack[0] = 0
}

func hostOpenat(ctx context.Context, mod api.Module, stack []uint64) {
	in := instanceFrom(ctx)
	path := readCString(mod.Memory(), api.DecodeU32(stack[1]), 4096)
	flags := api.DecodeI32(stack[2])
	fd, errno := in.fsOpen(path, flags)
	if errno != 0 {
		stack[0] = api.EncodeI32(-errno)
		return
	}
	stack[0] = api.EncodeI32(fd)
}

func hostFcntl(ctx context.Context, _ api.Module, stack []uint64) {
	in := instanceFrom(ctx)
	fd := api.DecodeI32(stack[0])
	cmd := api.DecodeI32(stack[1])
	f := in.fsFile(fd)
	if f == nil {
		stack[0] = api.EncodeI32(-errnoBADF)
		return
	}
	switch cmd {
	case 3: // F_GETFL
		stack[0] = api.EncodeI32(f.flags)
	default: // F_SETFD, F_SETFL, locks: accept
		stack[0] = 0
	}
}

func hostIoctl(ctx context.Context, mod api.Module, stack []uint64) {
	fd := api.DecodeI32(stack[0])
	op := api.DecodeU32(stack[1])
	// Pretend stdout/stderr are terminals for TIOCGWINSZ so that musl line
	// buffers them and HiGHS's log arrives line by line; everything else
	// is not a tty.
	const tiocgwinsz = 21523
	if (fd == 1 || fd == 2) && op == tiocgwinsz {
		mem := mod.Memory()
		if argp, ok := mem.ReadUint32Le(api.DecodeU32(stack[2])); ok {
			mem.WriteUint64Le(argp, 0)
		}
		stack[0] = 0
		return
	}
	stack[0] = api.EncodeI32(-errnoNOTTY)
}

// readCString reads a NUL-terminated string of at most max bytes.
func readCString(mem api.Memory, ptr uint32, max uint32) string {
	size := mem.Size()
	if ptr >= size {
		return ""
	}
	n := min(max, size-ptr)
	b, _ := mem.Read(ptr, n)
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// putF64s writes vals as little-endian float64 at dst (a view of memory).
func putF64s(dst []byte, vals []float64) {
	if len(vals) == 0 {
		return
	}
	_ = dst[len(vals)*8-1]
	for i, v := range vals {
		binary.LittleEndian.PutUint64(dst[i*8:], math.Float64bits(v))
	}
}

func getF64s(src []byte, out []float64) {
	if len(out) == 0 {
		return
	}
	_ = src[len(out)*8-1]
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(src[i*8:]))
	}
}

func putI32s(dst []byte, vals []int32) {
	if len(vals) == 0 {
		return
	}
	_ = dst[len(vals)*4-1]
	for i, v := range vals {
		binary.LittleEndian.PutUint32(dst[i*4:], uint32(v))
	}
}
