package google2011

import (
	"errors"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/traces"
)

// Machine event types.
const (
	machineAdd    = 0
	machineRemove = 1
	machineUpdate = 2
)

// ClusterOf builds the cluster from src.MachineEvents: every machine that is ever ADDed, once,
// with its most recent known CPU and memory capacity (normalized to the largest machine = 1),
// named "m<machine ID>" and ordered by ID. Machines whose capacity is never given are left out;
// their number is returned as skipped.
func ClusterOf(src Source) (c traces.Cluster, skipped int, err error) {
	files, err := expand(src.MachineEvents)
	if err != nil {
		return c, 0, err
	}
	if len(files) == 0 {
		return c, 0, errors.New("google2011: no machine_events input")
	}
	r := newLineReader(MachineEventsTable, machineEventNames[:], files)
	defer r.close()
	type machine struct {
		platform string
		cpu, mem float64
		added    bool
	}
	ms := make(map[int64]*machine)
	var in strCache
	for {
		f, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return c, 0, err
		}
		if _, err := r.time(f, 0); err != nil {
			return c, 0, err
		}
		id, err := r.uint(f, 1, true)
		if err != nil {
			return c, 0, err
		}
		typ, err := r.small(f, 2, machineAdd, machineUpdate, true)
		if err != nil {
			return c, 0, err
		}
		cpu, err := r.float(f, 4)
		if err != nil {
			return c, 0, err
		}
		mem, err := r.float(f, 5)
		if err != nil {
			return c, 0, err
		}
		m := ms[id]
		if m == nil {
			m = &machine{cpu: math.NaN(), mem: math.NaN()}
			ms[id] = m
		}
		if typ == machineAdd {
			m.added = true
		}
		if typ != machineRemove {
			if len(f[3]) > 0 {
				m.platform = in.get(f[3])
			}
			if !math.IsNaN(cpu) {
				m.cpu = cpu
			}
			if !math.IsNaN(mem) {
				m.mem = mem
			}
		}
	}
	ids := make([]int64, 0, len(ms))
	for id, m := range ms {
		if m.added {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		m := ms[id]
		if math.IsNaN(m.cpu) || math.IsNaN(m.mem) || m.cpu == 0 && m.mem == 0 {
			skipped++
			continue
		}
		c.Machines = append(c.Machines, traces.Machine{Name: "m" + strconv.FormatInt(id, 10), Capacity: traces.VecOf(m.cpu, m.mem), Platform: m.platform})
	}
	if len(c.Machines) == 0 {
		return c, skipped, errors.New("google2011: machine_events: no machine with a known capacity was added")
	}
	return c, skipped, nil
}

// defaultMix is the cell's machine population by normalized (CPU, memory) capacity, from Reiss et
// al., "Heterogeneity and dynamicity of clouds at scale: Google trace analysis", SoCC 2012,
// Table 1 (12,583 machines).
var defaultMix = []struct {
	n        int
	cpu, mem float64
}{
	{6732, 0.50, 0.50},
	{3863, 0.50, 0.25},
	{1001, 0.50, 0.75},
	{795, 1.00, 1.00},
	{126, 0.25, 0.25},
	{52, 0.50, 0.12},
	{5, 0.50, 0.03},
	{5, 0.50, 0.97},
	{3, 1.00, 0.50},
	{1, 0.50, 0.06},
}

// DefaultCluster is the cluster used when no machine_events are given: the trace cell's 12,583
// machines by capacity class (Reiss et al., SoCC 2012, Table 1), named "m0".. in that order, with
// capacities normalized so the largest machine is 1.0 CPU and 1.0 memory.
func DefaultCluster() traces.Cluster {
	var c traces.Cluster
	for _, g := range defaultMix {
		for range g.n {
			c.Machines = append(c.Machines, traces.Machine{Name: "m" + strconv.Itoa(len(c.Machines)), Capacity: traces.VecOf(g.cpu, g.mem)})
		}
	}
	return c
}
