package solver

import "errors"

// Sentinel errors. Every error returned by this package starts with
// "solver: " and wraps one of these (or a context error), so callers can use
// errors.Is. Infeasible, unbounded and limit outcomes are not errors: they
// are reported in Result.Status.
var (
	// ErrWasmNotFound means highs.wasm is on none of the SearchPath
	// locations; the error text includes InstallHint.
	ErrWasmNotFound = errors.New("highs.wasm not found")
	// ErrWasmMismatch means a highs.wasm was found but is not the pinned
	// build (wrong size or sha256).
	ErrWasmMismatch = errors.New("highs.wasm is not the pinned build")
	// ErrAborted means the HiGHS instance crashed: a WebAssembly trap, a
	// C++ exception, abort() or exit(). The instance is discarded; the next
	// solve runs on a fresh one.
	ErrAborted = errors.New("HiGHS aborted")
	// ErrInvalidModel means the model was rejected before solving (bad
	// bounds, NaN coefficients, out-of-range variables, ...).
	ErrInvalidModel = errors.New("invalid model")
	// ErrSolverFailed means HiGHS returned an error status (for instance a
	// solve or postsolve error) without crashing; Result.Status is
	// StatusError.
	ErrSolverFailed = errors.New("HiGHS reported an error")
	// ErrClosed means the Solver or Pool was closed.
	ErrClosed = errors.New("closed")
	// ErrInvalidOption means an Options field is out of range (negative
	// MIPGap, RandomSeed beyond int32, ...).
	ErrInvalidOption = errors.New("invalid option")
	// ErrUnsupported means an option this build cannot honour (for example
	// Threads > 1: the WebAssembly build is single-threaded).
	ErrUnsupported = errors.New("unsupported option")
)
