package google2011

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// machineMixCSV is the cell's published machine population (machine_mix.csv says where it comes
// from).
//
//go:embed machine_mix.csv
var machineMixCSV string

// MachineConfig is one machine configuration of the trace's cell and how many machines had it.
type MachineConfig struct {
	Machines int
	Platform string  // "A", "B" or "C", as Reiss et al. name the trace's three platforms
	CPU, Mem float64 // capacity, normalized to the largest machine (1.0)
}

// MixSource names the publication the machine mix comes from.
const MixSource = `Reiss et al., "Heterogeneity and dynamicity of clouds at scale: Google trace analysis", SoCC 2012, Table 1`

// PublishedMachines is the number of machines of the trace's cell in the published mix.
const PublishedMachines = 12583

// machineMix is machine_mix.csv, parsed once.
var machineMix = mustParseMix(machineMixCSV)

// MachineMix returns the cell's machine configurations, most common first (MixSource).
func MachineMix() []MachineConfig { return slices.Clone(machineMix) }

func mustParseMix(text string) []MachineConfig {
	mix, err := parseMix(text)
	if err != nil {
		panic("google2011: machine_mix.csv: " + err.Error())
	}
	return mix
}

// parseMix reads machine_mix.csv: '#' comment lines, a header, then machines,platform,cpu,memory
// rows.
func parseMix(text string) ([]MachineConfig, error) {
	var mix []MachineConfig
	header := false
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) != 4 {
			return nil, fmt.Errorf("line %d: %d fields, want 4", n+1, len(f))
		}
		if !header {
			if line != "machines,platform,cpu,memory" {
				return nil, fmt.Errorf("line %d: header %q, want machines,platform,cpu,memory", n+1, line)
			}
			header = true
			continue
		}
		var c MachineConfig
		var err error
		if c.Machines, err = strconv.Atoi(f[0]); err != nil || c.Machines <= 0 {
			return nil, fmt.Errorf("line %d: machines %q: want a positive integer", n+1, f[0])
		}
		c.Platform = f[1]
		for _, x := range []struct {
			p    *float64
			text string
		}{{&c.CPU, f[2]}, {&c.Mem, f[3]}} {
			if *x.p, err = strconv.ParseFloat(x.text, 64); err != nil || !(*x.p > 0 && *x.p <= 1) {
				return nil, fmt.Errorf("line %d: capacity %q: want a number in (0, 1]", n+1, x.text)
			}
		}
		mix = append(mix, c)
	}
	if len(mix) == 0 {
		return nil, fmt.Errorf("no configurations")
	}
	return mix, nil
}

// MixCluster returns the published machine mix (MachineMix) scaled to n machines (n ≤ 0: the
// published 12,583): each configuration gets its share of n by largest remainder (ties go to the
// more common configuration), machines are named "m0".. in the table's order and carry the
// paper's platform letter.
func MixCluster(n int) traces.Cluster {
	if n <= 0 {
		n = PublishedMachines
	}
	counts := apportion(machineMix, n)
	c := traces.Cluster{Machines: make([]traces.Machine, 0, n)}
	for i, g := range machineMix {
		capacity := traces.VecOf(g.CPU, g.Mem)
		for range counts[i] {
			c.Machines = append(c.Machines, traces.Machine{Name: "m" + strconv.Itoa(len(c.Machines)), Capacity: capacity, Platform: g.Platform})
		}
	}
	return c
}

// apportion divides n machines among the configurations in proportion to their published counts
// by the largest-remainder method.
func apportion(mix []MachineConfig, n int) []int {
	total := 0
	for _, g := range mix {
		total += g.Machines
	}
	counts := make([]int, len(mix))
	rem := make([]int, len(mix)) // remainders, in units of 1/total machines
	left := n
	for i, g := range mix {
		q := g.Machines * n
		counts[i], rem[i] = q/total, q%total
		left -= counts[i]
	}
	order := make([]int, len(mix))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rem[b] - rem[a] })
	for _, i := range order[:left] {
		counts[i]++
	}
	return counts
}
