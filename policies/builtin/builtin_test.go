package builtin_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/builtin"
)

func TestRegistryListsEveryPolicy(t *testing.T) {
	r := builtin.Registry()
	want := []string{"bpf", "cora", "decimadp", "drf", "edf", "external", "fair", "fifo", "jvusched", "mbvt", "nbpf", "rrh", "sp", "srpt", "trace"}
	if got := r.Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, e := range r.Entries() {
		t.Run(e.Name+" has a one-line description and builds a policy of that name", func(t *testing.T) {
			if e.Description == "" || strings.Contains(e.Description, "\n") {
				t.Errorf("description %q", e.Description)
			}
			var o policies.Options
			if e.Name == "external" { // the one policy that needs a parameter: its scheduler
				o.Params = map[string]any{"command": "true"}
			}
			p, err := r.New(e.Name, o)
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != e.Name {
				t.Errorf("Name() = %q", p.Name())
			}
		})
	}
}

func TestRegistryErrors(t *testing.T) {
	tests := []struct {
		name string
		run  func(*policies.Registry) error
		want string
		is   error
	}{
		{
			name: "registering a built-in name again is rejected as a duplicate",
			run: func(r *policies.Registry) error {
				return r.Register(builtin.Entries()[0])
			},
			want: `duplicate policy name "fifo"`,
		},
		{
			name: "an unknown name is rejected with the valid names listed",
			run: func(r *policies.Registry) error {
				_, err := r.New("lottery", policies.Options{})
				return err
			},
			want: `"lottery" (valid: bpf, cora, decimadp, drf, edf, external, fair, fifo, jvusched, mbvt, nbpf, rrh, sp, srpt, trace)`,
			is:   policies.ErrUnknownPolicy,
		},
		{
			name: "an unknown level is rejected naming the policy and the valid levels",
			run: func(r *policies.Registry) error {
				_, err := r.New("drf", policies.Options{Level: "rack"})
				return err
			},
			want: `policies: drf: unknown level "rack" (valid: job, queue)`,
		},
		{
			name: "an unknown parameter is rejected naming it",
			run: func(r *policies.Registry) error {
				_, err := r.New("sp", policies.Options{Params: map[string]any{"preemt": true}})
				return err
			},
			want: "unknown parameter policy.params.preemt (valid: preempt, weights)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run(builtin.Registry())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v does not wrap %v", err, tt.is)
			}
		})
	}
}
