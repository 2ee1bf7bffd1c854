package policies

import (
	"errors"
	"strings"
	"testing"
)

type named string

func (n named) Name() string                   { return string(n) }
func (n named) Schedule(v View, p *Plan) error { return nil }
func factory(name string) Factory              { return func(Options) (Policy, error) { return named(name), nil } }
func failing(Options) (Policy, error)          { return nil, errors.New("bad option") }

func TestRegistry(t *testing.T) {
	var r Registry
	if err := r.Register(Entry{Name: "b", New: factory("b")}); err != nil {
		t.Fatal(err)
	}
	r.MustRegister(Entry{Name: "a", New: factory("a")}, Entry{Name: "broken", New: failing})
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"a duplicate name is rejected", r.Register(Entry{Name: "a", New: factory("a")}), `duplicate policy name "a"`},
		{"an entry without a name is rejected", r.Register(Entry{New: factory("")}), "needs a name"},
		{"an entry without a factory is rejected", r.Register(Entry{Name: "c"}), "needs a name and a factory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", tc.err, tc.want)
			}
		})
	}
	if got := strings.Join(r.Names(), ","); got != "a,b,broken" {
		t.Fatalf("Names() = %s", got)
	}
	if p, err := r.New("a", Options{}); err != nil || p.Name() != "a" {
		t.Fatalf("New(a) = %v, %v", p, err)
	}
	_, err := r.New("zzz", Options{})
	if !errors.Is(err, ErrUnknownPolicy) || !strings.Contains(err.Error(), "(valid: a, b, broken)") {
		t.Fatalf("New(zzz) = %v", err)
	}
	if _, err := r.New("broken", Options{}); err == nil || !strings.Contains(err.Error(), "policies: broken: bad option") {
		t.Fatalf("New(broken) = %v", err)
	}
}

func TestCheckParams(t *testing.T) {
	if err := CheckParams(map[string]any{"preempt": true}, "preempt", "weights"); err != nil {
		t.Fatal(err)
	}
	err := CheckParams(map[string]any{"zeta": 1, "alpha": 2}, "preempt")
	if err == nil || !strings.Contains(err.Error(), "policy.params.alpha (valid: preempt)") {
		t.Fatalf("err = %v, want the first unknown key in sorted order", err)
	}
	if err := CheckParams(map[string]any{"x": 1}); err == nil || !strings.Contains(err.Error(), "takes none") {
		t.Fatalf("err = %v", err)
	}
}
