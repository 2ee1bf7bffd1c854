package replay

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// scenarioYarn reads a scenario script's YARN options (see TestScenarios) into c.
func scenarioYarn(c *YarnConfig, kv map[string]string, flags map[string]bool) error {
	secs := func(k string, dst *traces.Time) error {
		if v, ok := kv[k]; ok {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("%s=%q: %v", k, v, err)
			}
			*dst = traces.FromSeconds(x)
		}
		return nil
	}
	for k, dst := range map[string]*traces.Time{"heartbeat": &c.Heartbeat, "am_startup": &c.AMStartup, "am_setup": &c.AMSetup, "am_teardown": &c.AMTeardown} {
		if err := secs(k, dst); err != nil {
			return err
		}
	}
	if v, ok := kv["per_beat"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("per_beat=%q: %v", v, err)
		}
		c.ContainersPerHeartbeat = n
	}
	if v, ok := kv["am"]; ok {
		var xs []float64
		for _, p := range strings.Split(v, ",") {
			x, err := strconv.ParseFloat(p, 64)
			if err != nil {
				return fmt.Errorf("am=%q: %v", v, err)
			}
			xs = append(xs, x)
		}
		c.AM, c.AMDemand = true, traces.VecOf(xs...)
	}
	for k, dst := range map[string]*float64{"max_am_share": &c.MaxAMShare, "slowstart": &c.SlowStart} {
		if v, ok := kv[k]; ok {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("%s=%q: %v", k, v, err)
			}
			*dst = x
		}
	}
	_, c.SlowStartOn = kv["slowstart"]
	c.Reservations = flags["reservations"]
	return nil
}
