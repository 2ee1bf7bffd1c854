package policies

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// Options configure a policy instance. Fields a policy does not use are ignored; policy-specific
// settings come in Params and each factory rejects keys it does not know.
type Options struct {
	// Level is what fair-sharing policies share between: "job" (default) or "queue".
	Level string
	// Backfill lets ordered policies skip a job whose next task does not fit and try later ones.
	// Off by default: the head of the order blocks (no starvation of large tasks), and a
	// scheduling point costs O(tasks started), not O(active jobs).
	Backfill bool
	// ClassOrder lists job classes from highest to lowest priority (strict priority policies).
	ClassOrder []string
	// Params holds policy-specific settings (config keys policy.params.*).
	Params map[string]any
	// Seed is the run's seed; policies that draw random numbers derive their generator from it
	// and their name.
	Seed uint64
	// DumpModels, when set, is a directory into which a solver-backed policy writes every model
	// it solves (pass it as solver.Options.DumpDir). Empty: no dumps.
	DumpModels string
	// Cycle is the engine's scheduling period (0: event-driven), for policies whose parameters
	// are checked against it when they are built (jvusched's time slices).
	Cycle traces.Time
}

// Factory builds a policy from options.
type Factory func(Options) (Policy, error)

// Entry describes one registered policy.
type Entry struct {
	Name        string
	Description string // one line, shown by `schedlab policies`
	New         Factory
}

// Registry maps policy names to factories. Registration is explicit; duplicates are rejected.
type Registry struct {
	entries map[string]Entry
}

// ErrUnknownPolicy is wrapped by the error New returns for an unregistered name.
var ErrUnknownPolicy = errors.New("policies: unknown policy")

// Register adds e, rejecting empty and duplicate names.
func (r *Registry) Register(e Entry) error {
	if e.Name == "" || e.New == nil {
		return fmt.Errorf("policies: register: entry needs a name and a factory")
	}
	if r.entries == nil {
		r.entries = make(map[string]Entry)
	}
	if _, dup := r.entries[e.Name]; dup {
		return fmt.Errorf("policies: register: duplicate policy name %q", e.Name)
	}
	r.entries[e.Name] = e
	return nil
}

// MustRegister is Register for static registration tables; it panics on a programming error.
func (r *Registry) MustRegister(entries ...Entry) {
	for _, e := range entries {
		if err := r.Register(e); err != nil {
			panic(err)
		}
	}
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.entries))
	for n := range r.entries {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Entries returns the registered entries sorted by name.
func (r *Registry) Entries() []Entry {
	out := make([]Entry, 0, len(r.entries))
	for _, n := range r.Names() {
		out = append(out, r.entries[n])
	}
	return out
}

// Has reports whether name is registered.
func (r *Registry) Has(name string) bool {
	_, ok := r.entries[name]
	return ok
}

// New builds the named policy. An unknown name yields an error listing the valid names.
func (r *Registry) New(name string, o Options) (Policy, error) {
	e, ok := r.entries[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (valid: %s)", ErrUnknownPolicy, name, strings.Join(r.Names(), ", "))
	}
	p, err := e.New(o)
	if err != nil {
		return nil, fmt.Errorf("policies: %s: %w", name, err)
	}
	return p, nil
}

// CheckParams returns an error naming the first key of params not in known (sorted for a
// deterministic message), listing the known keys.
func CheckParams(params map[string]any, known ...string) error {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(known, k) {
			if len(known) == 0 {
				return fmt.Errorf("unknown parameter policy.params.%s (this policy takes none)", k)
			}
			return fmt.Errorf("unknown parameter policy.params.%s (valid: %s)", k, strings.Join(known, ", "))
		}
	}
	return nil
}
