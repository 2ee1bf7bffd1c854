package strl

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

const sec = traces.Second

// fig6 is the pSTRL expression of JamaisVu §4.1.3 (Fig. 6) at t = 10.
const fig6 = `sum(
  killnck({m2,m3}, 2, 10, 10, 11),
  max[job2](nck({m1,m2}, 2, 10, 20, 100), nck({m3,m4}, 2, 10, 20, 100), nck({m1,m2,m3,m4}, 2, 20, 20, 1)),
  max[job3](nck({m1,m2}, 2, 10, 20, 100), nck({m1,m2,m3,m4}, 2, 20, 20, 1))
)`

func TestParseFig6(t *testing.T) {
	e, err := Parse(fig6)
	if err != nil {
		t.Fatal(err)
	}
	want := &Sum{Children: []Expr{
		&KillNCk{Set: Machines("m2", "m3"), K: 2, StartP: 10 * sec, FinishP: 10 * sec, Cost: 11},
		&Max{Tag: "job2", Children: []Expr{
			&NCk{Set: Machines("m1", "m2"), K: 2, Start: 10 * sec, Dur: 20 * sec, Value: 100},
			&NCk{Set: Machines("m3", "m4"), K: 2, Start: 10 * sec, Dur: 20 * sec, Value: 100},
			&NCk{Set: Machines("m1", "m2", "m3", "m4"), K: 2, Start: 20 * sec, Dur: 20 * sec, Value: 1},
		}},
		&Max{Tag: "job3", Children: []Expr{
			&NCk{Set: Machines("m1", "m2"), K: 2, Start: 10 * sec, Dur: 20 * sec, Value: 100},
			&NCk{Set: Machines("m1", "m2", "m3", "m4"), K: 2, Start: 20 * sec, Dur: 20 * sec, Value: 1},
		}},
	}}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("parsed\n%s\nwant\n%s", Format(e), Format(want))
	}
}

func TestRoundTrip(t *testing.T) {
	for _, text := range []string{
		`nck({*}, 1, 0, 0.000001, 0)`,
		`lnck[a.b:c/d+e-f@g]({rack=r0,m7,gpu,*}, 16, 1.5, 3600, -2.25e-07)`,
		`killnck({machine=gpu,machine="a b",rack="r 1"}, 3, 0, 12345678.000001, 1000.001)`,
		`lkillnck({rack=""}, 1, 5, 5, 1e+300)`,
		`max(min(nck({m1}, 1, 0, 1, 1), nck({m2}, 1, 0, 1, 2)), scale[x](sum(nck({m1}, 1, 0, 1, 1)), 0.5), barrier(nck({m1}, 1, 0, 1, 3), 2))`,
		fig6,
	} {
		e, err := Parse(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		for _, out := range []string{Format(e), FormatIndent(e)} {
			e2, err := Parse(out)
			if err != nil {
				t.Fatalf("re-parse of %q: %v", out, err)
			}
			if !reflect.DeepEqual(e, e2) {
				t.Errorf("round trip changed the expression:\n%s\n%s", Format(e), Format(e2))
			}
		}
	}
}

func TestFormatIndent(t *testing.T) {
	e, err := Parse(`sum(nck({*}, 1, 0, 1, 1), max(nck({m1}, 2, 0, 1, 1), nck({gpu}, 2, 0, 1, 1)))`)
	if err != nil {
		t.Fatal(err)
	}
	want := "sum(\n  nck({*}, 1, 0, 1, 1),\n  max(\n    nck({m1}, 2, 0, 1, 1),\n    nck({gpu}, 2, 0, 1, 1)\n  )\n)"
	if got := FormatIndent(e); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{``, "line 1, column 1: want an expression, got end of input"},
		{`foo(1)`, `line 1, column 1: unknown operator "foo"`},
		{"sum(\n  nck({m1}, 0, 0, 1, 1))", "line 2, column 13: "},
		{"sum(\n  nck({m1}, 0, 0, 1, 1))", "k \"0\": want an integer in 1.."},
		{`nck({m1}, 1, 0, 0, 1)`, "duration > 0"},
		{`nck({m1}, 1, 0.0000001, 1, 1)`, "at most six fractional digits"},
		{`nck({m1}, 1, -1, 1, 1)`, "start ≥ 0"},
		{`nck({}, 1, 0, 1, 1)`, "want a set item"},
		{`nck({m1}, 1, 0, 1, NaN)`, "want a finite number"},
		{`nck({m1}, 1, 0, 1, 1e999)`, "want a finite number"},
		{`killnck({m1}, 1, 5, 4, 1)`, "start_p ≤ finish_p"},
		{`scale(nck({m1}, 1, 0, 1, 1), -1)`, "factor -1"},
		{`max()`, "want an expression, got ')'"},
		{`nck({m1}, 1, 0, 1, 1) x`, "unexpected 'x' after the expression"},
		{`nck[]({m1}, 1, 0, 1, 1)`, "want a label"},
		{`nck({"m1}, 1, 0, 1, 1)`, "unterminated quoted name"},
		{strings.Repeat("sum(", MaxDepth+1) + "nck({m1}, 1, 0, 1, 1)" + strings.Repeat(")", MaxDepth+1), "nested deeper"},
	} {
		_, err := Parse(tt.text)
		var se *SyntaxError
		if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%.40q): got %v, want a syntax error containing %q", tt.text, err, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, e := range []Expr{
		nil,
		&Sum{},
		&Max{Children: []Expr{nil}},
		&NCk{Set: All(), K: 1, Dur: 1, Tag: "a b"},
		&KillNCk{Set: Machines(""), K: 1},
		&Barrier{Value: 1},
	} {
		if err := Validate(e); !errors.Is(err, ErrInvalid) {
			t.Errorf("Validate(%#v) = %v, want ErrInvalid", e, err)
		}
	}
}

func TestResolve(t *testing.T) {
	ms := traces.Uniform(6, traces.VecOf(1, 1), 2).Machines
	ms[4].GPU = true
	byName := map[string]int{}
	for i, m := range ms {
		byName[m.Name] = i
	}
	member := make([]bool, len(ms))
	for _, tt := range []struct {
		set  Set
		want []int
	}{
		{All(), []int{0, 1, 2, 3, 4, 5}},
		{GPU(), []int{4}},
		{Rack("r1"), []int{2, 3}},
		{Set{Items: []Item{{Kind: ItemRack, Name: "r0"}, {Kind: ItemMachine, Name: "m5"}, {Kind: ItemMachine, Name: "m0"}}}, []int{0, 1, 5}},
		{Rack("nope"), nil},
	} {
		n, err := tt.set.Resolve(ms, member, byName)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for m, in := range member {
			if in {
				got = append(got, m)
			}
		}
		if n != len(tt.want) || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %v (%d), want %v", tt.set, got, n, tt.want)
		}
	}
	if _, err := Machines("m9").Resolve(ms, member, byName); err == nil {
		t.Error("unknown machine resolved")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(fig6)
	f.Add(`lnck[x]({rack=r0,"q",gpu,*}, 3, 1.25, 2, 0.5)`)
	f.Add(`scale(barrier(min(nck({m}, 1, 0, 1, 1)), 1), 2)`)
	f.Fuzz(func(t *testing.T, text string) {
		e, err := Parse(text)
		if err != nil {
			return
		}
		if err := Validate(e); err != nil {
			t.Fatalf("Parse accepted an invalid expression: %v", err)
		}
		out := Format(e)
		e2, err := Parse(out)
		if err != nil {
			t.Fatalf("Format output %q does not parse: %v", out, err)
		}
		if !reflect.DeepEqual(e, e2) || Format(e2) != out {
			t.Fatalf("round trip changed %q to %q", out, Format(e2))
		}
	})
}
