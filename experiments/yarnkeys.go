package experiments

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cast"
	"github.com/spf13/viper"

	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// YarnKeys are the engine.* keys of the YARN execution mechanics (replay.YarnConfig, whose doc
// gives each one's semantics and source). Times in seconds. It is comparable.
type YarnKeys struct {
	HeartbeatS             float64
	ContainersPerHeartbeat int64
	AM                     bool
	AMDemand               string // canonical: amounts joined by commas
	AMStartupS             float64
	AMSetupS               float64
	AMTeardownS            float64
	MaxAMShare             float64
	Reservations           bool
	SlowStart              float64
}

// defaultYarnKeys are the keys' defaults: every mechanic off.
var defaultYarnKeys = YarnKeys{ContainersPerHeartbeat: 1, SlowStart: 1}

// resolveYarn reads and checks the mechanics' keys.
func resolveYarn(v *viper.Viper, y *YarnKeys) error {
	secs := func(key string, dst *float64) error {
		f, err := cast.ToFloat64E(v.Get(key))
		if err != nil || math.IsNaN(f) || f < 0 {
			return configErr("%s: want a number ≥ 0, got %v", key, v.Get(key))
		}
		if f > MaxSeconds {
			return configErr("%s: want seconds in [0, %g], got %v", key, MaxSeconds, v.Get(key))
		}
		*dst = f
		return nil
	}
	frac := func(key string, dst *float64) error {
		f, err := cast.ToFloat64E(v.Get(key))
		if err != nil || !(f >= 0 && f <= 1) {
			return configErr("%s: want a fraction in [0, 1], got %v", key, v.Get(key))
		}
		*dst = f
		return nil
	}
	boolean := func(key string, dst *bool) error {
		b, err := cast.ToBoolE(v.Get(key))
		if err != nil {
			return configErr("%s: not a boolean: %v", key, v.Get(key))
		}
		*dst = b
		return nil
	}
	for _, step := range []func() error{
		func() error { return secs("engine.heartbeat_s", &y.HeartbeatS) },
		func() error {
			n, err := cast.ToInt64E(v.Get("engine.containers_per_heartbeat"))
			if err != nil || n < 0 || n > math.MaxInt32 {
				return configErr("engine.containers_per_heartbeat: want an integer in [0, %d], got %v", math.MaxInt32, v.Get("engine.containers_per_heartbeat"))
			}
			y.ContainersPerHeartbeat = n
			return nil
		},
		func() error { return boolean("engine.am", &y.AM) },
		func() error { return secs("engine.am_startup_s", &y.AMStartupS) },
		func() error { return secs("engine.am_setup_s", &y.AMSetupS) },
		func() error { return secs("engine.am_teardown_s", &y.AMTeardownS) },
		func() error { return frac("engine.max_am_share", &y.MaxAMShare) },
		func() error { return boolean("engine.reservations", &y.Reservations) },
		func() error { return frac("engine.slowstart", &y.SlowStart) },
		func() error {
			d, err := parseAMDemand(cast.ToString(v.Get("engine.am_demand")))
			if err != nil {
				return configErr("engine.am_demand: %v", err)
			}
			y.AMDemand = d
			if y.AM && d == "" {
				return configErr("engine.am_demand: empty, but engine.am is on: give the AM container's size, e.g. 1,1.5")
			}
			return nil
		},
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// parseAMDemand checks a comma-separated list of amounts ≥ 0 and returns it canonical.
func parseAMDemand(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > traces.MaxDims {
		return "", fmt.Errorf("%d amounts, at most %d dimensions", len(parts), traces.MaxDims)
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(x >= 0) {
			return "", fmt.Errorf("amount %d: want a number ≥ 0, got %q", i+1, strings.TrimSpace(p))
		}
		if _, err := traces.CheckedAmount(x); err != nil {
			return "", fmt.Errorf("amount %d: %v", i+1, err)
		}
		out[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(out, ","), nil
}

// replay converts the keys for the engine.
func (y YarnKeys) replay() replay.YarnConfig {
	c := replay.YarnConfig{
		Heartbeat:              traces.FromSeconds(y.HeartbeatS),
		ContainersPerHeartbeat: int(y.ContainersPerHeartbeat),
		AM:                     y.AM,
		AMStartup:              traces.FromSeconds(y.AMStartupS),
		AMSetup:                traces.FromSeconds(y.AMSetupS),
		AMTeardown:             traces.FromSeconds(y.AMTeardownS),
		MaxAMShare:             y.MaxAMShare,
		Reservations:           y.Reservations,
		SlowStartOn:            y.SlowStart < 1,
		SlowStart:              y.SlowStart,
	}
	if y.AMDemand != "" {
		var xs []float64
		for _, p := range strings.Split(y.AMDemand, ",") {
			x, _ := strconv.ParseFloat(p, 64) // checked by parseAMDemand
			xs = append(xs, x)
		}
		c.AMDemand = traces.VecOf(xs...)
	}
	return c
}

// addTo adds the keys that differ from their defaults to config.yaml's engine section, so the
// configuration (and a sweep's cache key) of a run without the mechanics stays as it was
// before they existed.
func (y YarnKeys) addTo(engine map[string]any) map[string]any {
	d := defaultYarnKeys
	add := func(key string, differs bool, val any) {
		if differs {
			engine[key] = val
		}
	}
	add("heartbeat_s", y.HeartbeatS != d.HeartbeatS, y.HeartbeatS)
	add("containers_per_heartbeat", y.ContainersPerHeartbeat != d.ContainersPerHeartbeat, y.ContainersPerHeartbeat)
	add("am", y.AM != d.AM, y.AM)
	add("am_demand", y.AMDemand != d.AMDemand, y.AMDemand)
	add("am_startup_s", y.AMStartupS != d.AMStartupS, y.AMStartupS)
	add("am_setup_s", y.AMSetupS != d.AMSetupS, y.AMSetupS)
	add("am_teardown_s", y.AMTeardownS != d.AMTeardownS, y.AMTeardownS)
	add("max_am_share", y.MaxAMShare != d.MaxAMShare, y.MaxAMShare)
	add("reservations", y.Reservations != d.Reservations, y.Reservations)
	add("slowstart", y.SlowStart != d.SlowStart, y.SlowStart)
	return engine
}
