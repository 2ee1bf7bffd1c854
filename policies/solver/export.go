package solver

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"github.com/schedlab/schedlab/internal/safefs"
)

// Format is a model file format for export.
type Format uint8

// Export formats (HiGHS's writers).
const (
	FormatLP  Format = iota // CPLEX LP format
	FormatMPS               // free MPS
)

// Ext returns the file extension of f, ".lp" or ".mps".
func (f Format) Ext() string {
	if f == FormatMPS {
		return ".mps"
	}
	return ".lp"
}

// exportModel loads m with names into the instance and returns HiGHS's
// rendering of it in format f.
func (in *instance) exportModel(ctx context.Context, m *Model, f Format) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	in.done = ctx.Done()
	defer func() { in.done = nil }()
	l, err := layoutFor(m, nil)
	if err != nil {
		return nil, err
	}
	base, err := in.reserve(ctx, l.total)
	if err != nil {
		return nil, err
	}
	if err := in.passModel(ctx, m, base, &l); err != nil {
		return nil, err
	}
	if err := in.passNames(ctx, m); err != nil {
		return nil, err
	}
	path := "/schedlab-export" + f.Ext()
	p, err := in.tempString(ctx, path)
	if err != nil {
		return nil, err
	}
	defer in.freePtr(ctx, p)
	delete(in.files, path)
	st, err := in.call(ctx, in.fn.writeModel, uint64(in.highs), uint64(p))
	if err != nil {
		return nil, err
	}
	data, ok := in.files[path]
	delete(in.files, path)
	if int32(st) == highsStatusError || !ok {
		return nil, fmt.Errorf("solver: %w: Highs_writeModel failed", ErrSolverFailed)
	}
	return data, nil
}

// passNames gives HiGHS sanitised, unique names for the model, its
// variables and rows.
func (in *instance) passNames(ctx context.Context, m *Model) error {
	seen := make(map[string]bool, m.NumVars()+m.NumRows())
	pass := func(fn func(int, string) error, count int, names []string, prefix string) error {
		for i := 0; i < count; i++ {
			name := ""
			if i < len(names) {
				name = sanitizeName(names[i])
			}
			if name == "" {
				name = prefix + strconv.Itoa(i)
			}
			for base, k := name, 1; seen[name]; k++ {
				name = base + "_" + strconv.Itoa(k)
			}
			seen[name] = true
			if err := fn(i, name); err != nil {
				return err
			}
		}
		return nil
	}
	passOne := func(f func(ptr uint32) (uint64, error), name, what string) error {
		p, err := in.tempString(ctx, name)
		if err != nil {
			return err
		}
		st, err := f(p)
		if err != nil {
			return err
		}
		if err := in.freePtr(ctx, p); err != nil {
			return err
		}
		return in.checkStatus(what, st)
	}
	h := uint64(in.highs)
	if m.Name != "" {
		if err := passOne(func(p uint32) (uint64, error) {
			return in.call(ctx, in.fn.passModelName, h, uint64(p))
		}, sanitizeName(m.Name), "Highs_passModelName"); err != nil {
			return err
		}
	}
	if err := pass(func(j int, name string) error {
		return passOne(func(p uint32) (uint64, error) {
			return in.call(ctx, in.fn.passColName, h, uint64(j), uint64(p))
		}, name, "Highs_passColName")
	}, m.NumVars(), m.vnames, "x"); err != nil {
		return err
	}
	return pass(func(i int, name string) error {
		return passOne(func(p uint32) (uint64, error) {
			return in.call(ctx, in.fn.passRowName, h, uint64(i), uint64(p))
		}, name, "Highs_passRowName")
	}, m.NumRows(), m.rnames, "r")
}

// sanitizeName keeps letters, digits and _.[] and replaces anything else
// by '_'; a name may not start with a digit or '.'.
func sanitizeName(s string) string {
	if s == "" {
		return ""
	}
	b := []byte(s)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '_' || c == '.' || c == '[' || c == ']'
		if !ok {
			b[i] = '_'
		}
	}
	if c := b[0]; c >= '0' && c <= '9' || c == '.' {
		return "_" + string(b)
	}
	return string(b)
}

var dumpSeq atomic.Int64

// dump writes m in LP format to dir/<name>-<seq>.lp and returns the path.
func (in *instance) dump(ctx context.Context, m *Model, dir string) (string, error) {
	b, err := in.exportModel(ctx, m, FormatLP)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("solver: dump model: %w", err)
	}
	name := sanitizeName(m.Name)
	if name == "" {
		name = "model"
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%06d.lp", name, dumpSeq.Add(1)))
	if err := safefs.WriteFile(path, func(w io.Writer) error { _, err := w.Write(b); return err }, safefs.NoSync); err != nil {
		return "", fmt.Errorf("solver: dump model: %w", err)
	}
	return path, nil
}
