package solver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// instance is one instantiated highs.wasm module holding one Highs object.
// It is not safe for concurrent use; after any failed call (trap, abort,
// interruption) it is marked broken and must be closed.
type instance struct {
	eng     *engine
	mod     api.Module
	mem     api.Memory
	created time.Time
	highs   uint32 // Highs* in linear memory

	// Per-call state read by host functions.
	done     <-chan struct{}
	abortErr error
	log      io.Writer

	broken bool

	fn    exportFuncs
	stack [24]uint64

	arena    uint32 // malloc'd scratch block reused across solves
	arenaCap uint32
	cstrs    map[string]uint32 // cached NUL-terminated strings

	applied appliedOptions
	tuning  []Setting // Options.Tuning last applied

	// In-memory file system for model export/import.
	files  map[string][]byte
	fds    map[int32]*openFile
	nextFD int32
}

type exportFuncs struct {
	ctors, malloc, free                                   api.Function
	create, destroy, version                              api.Function
	clearModel, clearSolver, passLp, passMip, passColName api.Function
	passRowName, passModelName, run, zeroAllClocks        api.Function
	setBool, setInt, setDouble, setString, resetOptions   api.Function
	getIntInfo, getDoubleInfo, getInt64Info               api.Function
	getSolution, getBasis, getModelStatus, getObjective   api.Function
	getRunTime, setBasis, setSolution, setSparseSol       api.Function
	writeModel, readModel, getNumCol, getNumRow           api.Function
}

type openFile struct {
	path  string
	flags int32
	pos   int64
}

func (e *engine) export(mod api.Module, sym string) (api.Function, error) {
	name, ok := e.exports[sym]
	if !ok {
		return nil, fmt.Errorf("solver: name table has no export %s", sym)
	}
	f := mod.ExportedFunction(name)
	if f == nil {
		return nil, fmt.Errorf("solver: highs.wasm does not export %s (%s)", sym, name)
	}
	return f, nil
}

// newInstance instantiates highs.wasm, runs its static constructors and
// creates a Highs object configured for single-threaded, silent use.
func (e *engine) newInstance(ctx context.Context) (_ *instance, err error) {
	in := &instance{
		eng:     e,
		created: time.Now(),
		cstrs:   map[string]uint32{},
		files:   map[string][]byte{},
		fds:     map[int32]*openFile{},
		nextFD:  3,
	}
	cctx := context.WithValue(ctx, instKey{}, in)
	mod, err := e.rt.InstantiateModule(cctx, e.compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		return nil, fmt.Errorf("solver: instantiate highs.wasm: %w", err)
	}
	in.mod = mod
	in.mem = mod.Memory()
	defer func() {
		if err != nil {
			mod.Close(context.WithoutCancel(ctx))
		}
	}()
	for _, b := range []struct {
		dst *api.Function
		sym string
	}{
		{&in.fn.ctors, "__wasm_call_ctors"}, {&in.fn.malloc, "malloc"}, {&in.fn.free, "free"},
		{&in.fn.create, "Highs_create"}, {&in.fn.destroy, "Highs_destroy"}, {&in.fn.version, "Highs_version"},
		{&in.fn.clearModel, "Highs_clearModel"}, {&in.fn.clearSolver, "Highs_clearSolver"}, {&in.fn.passLp, "Highs_passLp"}, {&in.fn.passMip, "Highs_passMip"},
		{&in.fn.passColName, "Highs_passColName"}, {&in.fn.passRowName, "Highs_passRowName"},
		{&in.fn.passModelName, "Highs_passModelName"}, {&in.fn.run, "Highs_run"},
		{&in.fn.zeroAllClocks, "Highs_zeroAllClocks"},
		{&in.fn.setBool, "Highs_setBoolOptionValue"}, {&in.fn.setInt, "Highs_setIntOptionValue"},
		{&in.fn.setDouble, "Highs_setDoubleOptionValue"}, {&in.fn.setString, "Highs_setStringOptionValue"},
		{&in.fn.resetOptions, "Highs_resetOptions"},
		{&in.fn.getIntInfo, "Highs_getIntInfoValue"}, {&in.fn.getDoubleInfo, "Highs_getDoubleInfoValue"},
		{&in.fn.getInt64Info, "Highs_getInt64InfoValue"},
		{&in.fn.getSolution, "Highs_getSolution"}, {&in.fn.getBasis, "Highs_getBasis"},
		{&in.fn.getModelStatus, "Highs_getModelStatus"}, {&in.fn.getObjective, "Highs_getObjectiveValue"},
		{&in.fn.getRunTime, "Highs_getRunTime"}, {&in.fn.setBasis, "Highs_setBasis"},
		{&in.fn.setSolution, "Highs_setSolution"}, {&in.fn.setSparseSol, "Highs_setSparseSolution"},
		{&in.fn.writeModel, "Highs_writeModel"}, {&in.fn.readModel, "Highs_readModel"},
		{&in.fn.getNumCol, "Highs_getNumCol"}, {&in.fn.getNumRow, "Highs_getNumRow"},
	} {
		f, err := e.export(mod, b.sym)
		if err != nil {
			return nil, err
		}
		*b.dst = f
	}
	if _, err := in.call(cctx, in.fn.ctors); err != nil {
		return nil, err
	}
	h, err := in.call(cctx, in.fn.create)
	if err != nil {
		return nil, err
	}
	if h == 0 {
		return nil, fmt.Errorf("solver: %w: Highs_create returned NULL", ErrAborted)
	}
	in.highs = uint32(h)
	if err := in.setBaseOptions(cctx); err != nil {
		return nil, err
	}
	return in, nil
}

// setBaseOptions applies the options every solve relies on: no console
// output, one thread, no parallel simplex (the build has no threads).
func (in *instance) setBaseOptions(ctx context.Context) error {
	if err := in.setIntOption(ctx, "threads", 1); err != nil {
		return err
	}
	if err := in.setStringOption(ctx, "parallel", "off"); err != nil {
		return err
	}
	if err := in.setBoolOption(ctx, "output_flag", false); err != nil {
		return err
	}
	in.applied = appliedOptions{}
	return nil
}

// call invokes f with args; it returns the first result. Errors (traps,
// aborts, interruption) mark the instance broken.
func (in *instance) call(ctx context.Context, f api.Function, args ...uint64) (uint64, error) {
	if in.broken {
		return 0, fmt.Errorf("solver: %w: instance is unusable after a failed call", ErrAborted)
	}
	copy(in.stack[:], args)
	if err := f.CallWithStack(ctx, in.stack[:]); err != nil {
		return 0, in.callError(ctx, err)
	}
	return in.stack[0], nil
}

func (in *instance) callError(ctx context.Context, err error) error {
	in.broken = true
	if errors.Is(err, errInterrupted) {
		if cerr := context.Cause(ctx); cerr != nil {
			return fmt.Errorf("solver: solve interrupted: %w", cerr)
		}
		return fmt.Errorf("solver: solve interrupted: %w", context.Canceled)
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) && ctx.Err() != nil {
		return fmt.Errorf("solver: solve interrupted: %w", context.Cause(ctx))
	}
	if in.abortErr != nil {
		return fmt.Errorf("solver: %w: %v", ErrAborted, in.abortErr)
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return fmt.Errorf("solver: %w: %s", ErrAborted, msg)
}

// close destroys the Highs object (when the instance is healthy) and
// releases the module.
func (in *instance) close(ctx context.Context) {
	if in.mod == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if !in.broken && in.highs != 0 {
		cctx := context.WithValue(ctx, instKey{}, in)
		_, _ = in.call(cctx, in.fn.destroy, uint64(in.highs))
	}
	in.mod.Close(ctx)
	in.mod = nil
}

func (in *instance) malloc(ctx context.Context, n uint32) (uint32, error) {
	p, err := in.call(ctx, in.fn.malloc, uint64(n))
	if err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, fmt.Errorf("solver: %w: out of wasm memory allocating %d bytes", ErrAborted, n)
	}
	return uint32(p), nil
}

// reserve returns a scratch block of at least n bytes, valid until the next
// reserve. It is reused across solves.
func (in *instance) reserve(ctx context.Context, n uint32) (uint32, error) {
	if n <= in.arenaCap && in.arena != 0 {
		return in.arena, nil
	}
	if in.arena != 0 {
		if _, err := in.call(ctx, in.fn.free, uint64(in.arena)); err != nil {
			return 0, err
		}
		in.arena, in.arenaCap = 0, 0
	}
	c := max(n+n/4, 4096)
	p, err := in.malloc(ctx, c)
	if err != nil {
		return 0, err
	}
	in.arena, in.arenaCap = p, c
	return p, nil
}

// cstring returns a pointer to a NUL-terminated copy of s, cached for the
// life of the instance (used for option and info names).
func (in *instance) cstring(ctx context.Context, s string) (uint32, error) {
	if p, ok := in.cstrs[s]; ok {
		return p, nil
	}
	p, err := in.malloc(ctx, uint32(len(s)+1))
	if err != nil {
		return 0, err
	}
	b := append([]byte(s), 0)
	if !in.mem.Write(p, b) {
		return 0, fmt.Errorf("solver: %w: write outside memory", ErrAborted)
	}
	in.cstrs[s] = p
	return p, nil
}

// tempString copies s into fresh wasm memory; the caller frees it.
func (in *instance) tempString(ctx context.Context, s string) (uint32, error) {
	p, err := in.malloc(ctx, uint32(len(s)+1))
	if err != nil {
		return 0, err
	}
	in.mem.Write(p, append([]byte(s), 0))
	return p, nil
}

func (in *instance) freePtr(ctx context.Context, p uint32) error {
	_, err := in.call(ctx, in.fn.free, uint64(p))
	return err
}

func (in *instance) checkStatus(what string, st uint64) error {
	if int32(st) == -1 {
		return fmt.Errorf("solver: %w: %s failed", ErrSolverFailed, what)
	}
	return nil
}

func (in *instance) setBoolOption(ctx context.Context, name string, v bool) error {
	p, err := in.cstring(ctx, name)
	if err != nil {
		return err
	}
	iv := uint64(0)
	if v {
		iv = 1
	}
	st, err := in.call(ctx, in.fn.setBool, uint64(in.highs), uint64(p), iv)
	if err != nil {
		return err
	}
	return in.checkStatus("set option "+name, st)
}

func (in *instance) setIntOption(ctx context.Context, name string, v int32) error {
	p, err := in.cstring(ctx, name)
	if err != nil {
		return err
	}
	st, err := in.call(ctx, in.fn.setInt, uint64(in.highs), uint64(p), api.EncodeI32(v))
	if err != nil {
		return err
	}
	return in.checkStatus("set option "+name, st)
}

func (in *instance) setDoubleOption(ctx context.Context, name string, v float64) error {
	p, err := in.cstring(ctx, name)
	if err != nil {
		return err
	}
	st, err := in.call(ctx, in.fn.setDouble, uint64(in.highs), uint64(p), api.EncodeF64(v))
	if err != nil {
		return err
	}
	return in.checkStatus("set option "+name, st)
}

func (in *instance) setStringOption(ctx context.Context, name, v string) error {
	p, err := in.cstring(ctx, name)
	if err != nil {
		return err
	}
	pv, err := in.cstring(ctx, v)
	if err != nil {
		return err
	}
	st, err := in.call(ctx, in.fn.setString, uint64(in.highs), uint64(p), uint64(pv))
	if err != nil {
		return err
	}
	return in.checkStatus("set option "+name, st)
}

// infoScratch is an 8-byte out-parameter slot at the start of the arena.
func (in *instance) intInfo(ctx context.Context, name string, out uint32) (int64, error) {
	p, err := in.cstring(ctx, name)
	if err != nil {
		return 0, err
	}
	st, err := in.call(ctx, in.fn.getIntInfo, uint64(in.highs), uint64(p), uint64(out))
	if err != nil || int32(st) == -1 {
		return 0, err
	}
	v, _ := in.mem.ReadUint32Le(out)
	return int64(int32(v)), nil
}

func (in *instance) int64Info(ctx context.Context, name string, out uint32) (int64, error) {
	p, err := in.cstring(ctx, name)
	if err != nil {
		return 0, err
	}
	st, err := in.call(ctx, in.fn.getInt64Info, uint64(in.highs), uint64(p), uint64(out))
	if err != nil || int32(st) == -1 {
		return 0, err
	}
	v, _ := in.mem.ReadUint64Le(out)
	return int64(v), nil
}

func (in *instance) doubleInfo(ctx context.Context, name string, out uint32) (float64, error) {
	p, err := in.cstring(ctx, name)
	if err != nil {
		return 0, err
	}
	st, err := in.call(ctx, in.fn.getDoubleInfo, uint64(in.highs), uint64(p), uint64(out))
	if err != nil || int32(st) == -1 {
		return 0, err
	}
	v, _ := in.mem.ReadFloat64Le(out)
	return v, nil
}

// versionString returns Highs_version(), e.g. "1.15.1".
func (in *instance) versionString(ctx context.Context) (string, error) {
	p, err := in.call(ctx, in.fn.version)
	if err != nil {
		return "", err
	}
	return readCString(in.mem, uint32(p), 64), nil
}

// --- in-memory file system (used by host functions) ---

func (in *instance) fsFile(fd int32) *openFile {
	switch fd {
	case 0:
		return &openFile{flags: 0}
	case 1, 2:
		return &openFile{flags: 1}
	}
	if in == nil {
		return nil
	}
	return in.fds[fd]
}

func (in *instance) fsOpen(path string, flags int32) (int32, int32) {
	if in == nil {
		return 0, errnoNOENT
	}
	data, exists := in.files[path]
	switch {
	case !exists && flags&oCREAT == 0:
		return 0, errnoNOENT
	case !exists || flags&oTRUNC != 0:
		data = nil
	}
	in.files[path] = data
	fd := in.nextFD
	in.nextFD++
	f := &openFile{path: path, flags: flags}
	if flags&oAPPEND != 0 {
		f.pos = int64(len(data))
	}
	in.fds[fd] = f
	return fd, 0
}

func (in *instance) fsWrite(fd int32, p []byte) int32 {
	if fd == 1 || fd == 2 {
		if in != nil && in.log != nil {
			_, _ = in.log.Write(p)
		}
		return 0
	}
	f := in.fsFile(fd)
	if f == nil || f.flags&oACCMODE == 0 {
		return errnoBADF
	}
	data := in.files[f.path]
	if f.flags&oAPPEND != 0 {
		f.pos = int64(len(data))
	}
	end := f.pos + int64(len(p))
	if end > int64(len(data)) {
		data = append(data, make([]byte, end-int64(len(data)))...)
	}
	copy(data[f.pos:], p)
	f.pos = end
	in.files[f.path] = data
	return 0
}

func (in *instance) fsRead(fd int32, p []byte) (int, int32) {
	if fd == 0 {
		return 0, 0
	}
	f := in.fsFile(fd)
	if f == nil || fd < 3 || f.flags&oACCMODE == 1 {
		return 0, errnoBADF
	}
	data := in.files[f.path]
	if f.pos >= int64(len(data)) {
		return 0, 0
	}
	n := copy(p, data[f.pos:])
	f.pos += int64(n)
	return n, 0
}

func (in *instance) fsSeek(fd int32, off int64, whence int32) (int64, int32) {
	if fd < 3 {
		return 0, errnoSPIPE
	}
	f := in.fsFile(fd)
	if f == nil {
		return 0, errnoBADF
	}
	var base int64
	switch whence {
	case 0:
	case 1:
		base = f.pos
	case 2:
		base = int64(len(in.files[f.path]))
	default:
		return 0, errnoINVAL
	}
	if base+off < 0 {
		return 0, errnoINVAL
	}
	f.pos = base + off
	return f.pos, 0
}

func (in *instance) fsClose(fd int32) int32 {
	if fd < 3 {
		return 0
	}
	if in == nil || in.fds[fd] == nil {
		return errnoBADF
	}
	delete(in.fds, fd)
	return 0
}
