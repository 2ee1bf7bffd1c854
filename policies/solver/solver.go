package solver

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"
)

// Info describes the process-wide HiGHS runtime.
type Info struct {
	// HiGHSVersion is the version reported by the module (Highs_version),
	// e.g. "1.15.1".
	HiGHSVersion string
	// WasmPath is the highs.wasm file that was loaded.
	WasmPath string
	// CacheDir is wazero's on-disk compilation cache ("" when disabled).
	CacheDir string
	// CompileTime is how long compiling (or loading from the cache) took.
	CompileTime time.Duration
}

var (
	versionMu  sync.Mutex
	versionStr string
)

// Load compiles highs.wasm once per process (using wazero's on-disk
// compilation cache) and reports what was loaded. Calling it is optional:
// the first solve does the same. It fails with ErrWasmNotFound (and an
// install hint) when highs.wasm is missing.
func Load(ctx context.Context) (Info, error) {
	e, err := getEngine(ctx)
	if err != nil {
		return Info{}, err
	}
	versionMu.Lock()
	defer versionMu.Unlock()
	if versionStr == "" {
		in, err := e.newInstance(ctx)
		if err != nil {
			return Info{}, err
		}
		v, err := in.versionString(context.WithValue(ctx, instKey{}, in))
		in.close(ctx)
		if err != nil {
			return Info{}, err
		}
		versionStr = v
	}
	return Info{HiGHSVersion: versionStr, WasmPath: e.wasmPath, CacheDir: e.cacheDir, CompileTime: e.compileTime}, nil
}

// ModelSolver is the small interface solver-backed policies can depend on;
// *Solver and *Pool implement it, and tests can substitute a fake.
type ModelSolver interface {
	Solve(ctx context.Context, m *Model, opts Options) (*Result, error)
}

var (
	_ ModelSolver = (*Solver)(nil)
	_ ModelSolver = (*Pool)(nil)
)

// Solver runs models on one HiGHS instance (one instantiated wasm module).
// It is not safe for concurrent use: use one Solver per goroutine, or a
// Pool. Reusing a Solver across solves avoids the few milliseconds of
// instance creation. After a crash (ErrAborted) or an interrupted solve the
// instance is discarded and the next call transparently uses a fresh one.
type Solver struct {
	in     *instance
	closed bool
}

// NewSolver returns a Solver with a ready instance, compiling highs.wasm
// first if this process has not yet done so.
func NewSolver(ctx context.Context) (*Solver, error) {
	s := &Solver{}
	if _, err := s.instance(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Solver) instance(ctx context.Context) (*instance, error) {
	if s.closed {
		return nil, fmt.Errorf("solver: %w", ErrClosed)
	}
	if s.in != nil {
		return s.in, nil
	}
	e, err := getEngine(ctx)
	if err != nil {
		return nil, err
	}
	in, err := e.newInstance(ctx)
	if err != nil {
		return nil, err
	}
	s.in = in
	return in, nil
}

// release discards the instance if it is broken.
func (s *Solver) release(ctx context.Context) {
	if s.in != nil && s.in.broken {
		s.in.close(ctx)
		s.in = nil
	}
}

// Solve solves m with opts. Infeasible, unbounded and limit outcomes are
// reported in Result.Status with a nil error. Errors are: an invalid model
// (ErrInvalidModel), unsupported options (ErrUnsupported), a crash of HiGHS
// (ErrAborted; the instance is replaced), a HiGHS error status
// (ErrSolverFailed, with a Result of StatusError) and cancellation of ctx
// (wrapping ctx's error; the instance is replaced). A context deadline is
// also applied as a HiGHS time limit, so it normally ends the solve
// gracefully with StatusFeasible or StatusLimit; only if HiGHS overruns it
// by a grace period (a tenth of the budget, 100 ms to 2 s) is the solve
// interrupted with an error wrapping context.DeadlineExceeded.
// Interruption takes effect the next time HiGHS reads its clock: typically
// within milliseconds, at worst a few hundred milliseconds on large LPs.
func (s *Solver) Solve(ctx context.Context, m *Model, opts Options) (*Result, error) {
	t0 := time.Now()
	fresh := s.in == nil
	in, err := s.instance(ctx)
	if err != nil {
		return nil, err
	}
	defer s.release(ctx)
	res, err := solveOn(ctx, in, m, &opts)
	if res != nil {
		res.Stats.NewInstance = fresh
		if fresh {
			res.Stats.WallTime = time.Since(t0)
		}
	}
	return res, err
}

func solveOn(ctx context.Context, in *instance, m *Model, opts *Options) (*Result, error) {
	cctx := context.WithValue(ctx, instKey{}, in)
	if opts.DumpDir != "" {
		if _, err := in.dump(cctx, m, opts.DumpDir); err != nil {
			return nil, err
		}
	}
	return in.solve(cctx, m, opts)
}

// WriteModel writes m to w in the given format, as produced by HiGHS's own
// writer (Highs_writeModel). Names are sanitised for the format; unnamed
// variables and rows are called x<j> and r<i>.
func (s *Solver) WriteModel(ctx context.Context, w io.Writer, m *Model, f Format) error {
	in, err := s.instance(ctx)
	if err != nil {
		return err
	}
	defer s.release(ctx)
	b, err := in.exportModel(context.WithValue(ctx, instKey{}, in), m, f)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Version returns the HiGHS version of the instance, e.g. "1.15.1".
func (s *Solver) Version(ctx context.Context) (string, error) {
	in, err := s.instance(ctx)
	if err != nil {
		return "", err
	}
	defer s.release(ctx)
	return in.versionString(context.WithValue(ctx, instKey{}, in))
}

// Close releases the instance. Further calls fail with ErrClosed.
func (s *Solver) Close() error {
	if s.in != nil {
		s.in.close(context.Background())
		s.in = nil
	}
	s.closed = true
	return nil
}

// Pool is a set of HiGHS instances for parallel solves (e.g. parameter
// sweeps); it is safe for concurrent use. Instances are created on demand,
// at most Size at a time, and reused; a call blocks while all are busy.
// All instances share the module compiled once per process.
type Pool struct {
	size int
	sem  chan struct{}
	mu   sync.Mutex
	idle []*instance
	done bool
}

// NewPool returns a pool of at most size instances (size ≤ 0 means
// runtime.GOMAXPROCS(0)).
func NewPool(size int) *Pool {
	if size <= 0 {
		size = runtime.GOMAXPROCS(0)
	}
	return &Pool{size: size, sem: make(chan struct{}, size)}
}

// Size returns the maximum number of instances.
func (p *Pool) Size() int { return p.size }

func (p *Pool) get(ctx context.Context) (*instance, bool, error) {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, false, fmt.Errorf("solver: waiting for a pool instance: %w", context.Cause(ctx))
	}
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		<-p.sem
		return nil, false, fmt.Errorf("solver: pool %w", ErrClosed)
	}
	if n := len(p.idle); n > 0 {
		in := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return in, false, nil
	}
	p.mu.Unlock()
	e, err := getEngine(ctx)
	if err == nil {
		var in *instance
		if in, err = e.newInstance(ctx); err == nil {
			return in, true, nil
		}
	}
	<-p.sem
	return nil, false, err
}

func (p *Pool) put(ctx context.Context, in *instance) {
	p.mu.Lock()
	if in.broken || p.done {
		p.mu.Unlock()
		in.close(ctx)
	} else {
		p.idle = append(p.idle, in)
		p.mu.Unlock()
	}
	<-p.sem
}

// Solve solves m on an idle instance; see Solver.Solve.
func (p *Pool) Solve(ctx context.Context, m *Model, opts Options) (*Result, error) {
	t0 := time.Now()
	in, fresh, err := p.get(ctx)
	if err != nil {
		return nil, err
	}
	defer p.put(ctx, in)
	res, err := solveOn(ctx, in, m, &opts)
	if res != nil {
		res.Stats.NewInstance = fresh
		if fresh {
			res.Stats.WallTime = time.Since(t0)
		}
	}
	return res, err
}

// WriteModel writes m to w in format f; see Solver.WriteModel.
func (p *Pool) WriteModel(ctx context.Context, w io.Writer, m *Model, f Format) error {
	in, _, err := p.get(ctx)
	if err != nil {
		return err
	}
	defer p.put(ctx, in)
	b, err := in.exportModel(context.WithValue(ctx, instKey{}, in), m, f)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Close releases the idle instances; busy ones are released when their
// solve returns. Later calls fail with ErrClosed.
func (p *Pool) Close() error {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.done = nil, true
	p.mu.Unlock()
	for _, in := range idle {
		in.close(context.Background())
	}
	return nil
}

var (
	defaultPoolOnce sync.Once
	defaultPool     *Pool
)

// DefaultPool returns the process-wide pool used by the package-level
// Solve and WriteModel (GOMAXPROCS instances at most).
func DefaultPool() *Pool {
	defaultPoolOnce.Do(func() { defaultPool = NewPool(0) })
	return defaultPool
}

// Solve solves m on the process-wide DefaultPool; see Solver.Solve.
func Solve(ctx context.Context, m *Model, opts Options) (*Result, error) {
	return DefaultPool().Solve(ctx, m, opts)
}

// WriteModel writes m to w in format f using the DefaultPool.
func WriteModel(ctx context.Context, w io.Writer, m *Model, f Format) error {
	return DefaultPool().WriteModel(ctx, w, m, f)
}
