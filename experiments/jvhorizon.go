package experiments

import (
	"github.com/spf13/cast"
	"github.com/spf13/viper"
)

// pairJamaisVuHorizon ties engine.horizon_s to workload.jamaisvu.horizon_s, the fixed-horizon
// design's H: the arrivals end at H and the horizon.* metrics are taken at engine.horizon_s.
// Unset (0), engine.horizon_s takes H; a later engine horizon is kept (metrics after the
// arrivals end); an earlier one would stop the run while jobs still arrive, and is refused.
func pairJamaisVuHorizon(v *viper.Viper, c *Config) error {
	if c.Workload.Generator != "jamaisvu" {
		return nil
	}
	h, err := cast.ToFloat64E(v.Get("workload.jamaisvu.horizon_s"))
	if err != nil || h <= 0 { // a bad value is the generator's error, reported before this
		return nil
	}
	switch {
	case c.Engine.HorizonS == 0:
		c.Engine.HorizonS = h
	case c.Engine.HorizonS < h:
		return configErr("engine.horizon_s=%g stops the run before workload.jamaisvu.horizon_s=%g, while jobs still arrive; set engine.horizon_s=%g or leave it unset (it then follows workload.jamaisvu.horizon_s)",
			c.Engine.HorizonS, h, h)
	}
	return nil
}
