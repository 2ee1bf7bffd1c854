package experiments

import (
	"errors"
	"strings"
	"testing"
)

// TestJamaisVuHorizonPairs: engine.horizon_s follows workload.jamaisvu.horizon_s when unset; a
// larger one is kept (metrics later than the arrivals end); a smaller one is refused in one line
// naming both keys and the fix.
func TestJamaisVuHorizonPairs(t *testing.T) {
	for _, tt := range []struct {
		wl, engine float64
		want       float64 // resolved engine.horizon_s; < 0: an error
	}{
		{900, 0, 900},
		{900, 900, 900},
		{900, 1800, 1800},
		{0, 1e8, 1e8},
		{0, 0, 0},
		{900, 450, -1},
	} {
		v := NewViper()
		v.Set("workload.generator", "jamaisvu")
		v.Set("workload.jamaisvu.horizon_s", tt.wl)
		v.Set("engine.horizon_s", tt.engine)
		c, err := Resolve(v)
		if tt.want < 0 {
			want := "engine.horizon_s=450 stops the run before workload.jamaisvu.horizon_s=900"
			if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), want) ||
				!strings.Contains(err.Error(), "set engine.horizon_s=900 or leave it unset") || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v: got %v, want one line with %q", tt, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tt, err)
			continue
		}
		if c.Engine.HorizonS != tt.want {
			t.Errorf("%v: engine.horizon_s %v, want %v", tt, c.Engine.HorizonS, tt.want)
		}
	}
	// Another generator's run keeps engine.horizon_s as given.
	v := NewViper()
	v.Set("engine.horizon_s", 10)
	if c, err := Resolve(v); err != nil || c.Engine.HorizonS != 10 {
		t.Errorf("no generator: %v %v", c.Engine.HorizonS, err)
	}
}
