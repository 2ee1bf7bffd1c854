package google2011

import (
	"errors"
	"fmt"
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

// MachineStats counts the machines of machine_events that a cluster leaves out.
type MachineStats struct {
	// Skipped machines were up but their capacity was never given (or was zero).
	Skipped int
	// Later machines were first ADDed after the cluster's time; Gone ones were REMOVEd by then.
	Later, Gone int
}

// ClusterOf builds the cluster from src.MachineEvents as it stood at trace time at: every machine
// ADDed at or before at and not REMOVEd since, with its capacity as of at (the last ADD or UPDATE
// by then; CPU and memory are normalized to the largest machine = 1), named "m<machine ID>" with
// its platform hash, ordered by ID. The replay engine's cluster is fixed, so machines that join
// or leave later are not modelled; MachineStats counts what is left out.
func ClusterOf(src Source, at traces.Time) (c traces.Cluster, st MachineStats, err error) {
	files, err := expand(src.MachineEvents)
	if err != nil {
		return c, st, err
	}
	if len(files) == 0 {
		return c, st, errors.New("google2011: no machine_events input")
	}
	r := newLineReader(MachineEventsTable, machineEventNames[:], files)
	defer r.close()
	type machine struct {
		platform        string
		cpu, mem        float64
		up, added, seen bool
	}
	ms := make(map[int64]*machine)
	var in strCache
	for {
		f, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return c, st, err
		}
		t, err := r.time(f, 0)
		if err != nil {
			return c, st, err
		}
		id, err := r.uint(f, 1, true)
		if err != nil {
			return c, st, err
		}
		typ, err := r.small(f, 2, machineAdd, machineUpdate, true)
		if err != nil {
			return c, st, err
		}
		cpu, err := r.amount(f, 4)
		if err != nil {
			return c, st, err
		}
		mem, err := r.amount(f, 5)
		if err != nil {
			return c, st, err
		}
		m := ms[id]
		if m == nil {
			m = &machine{cpu: math.NaN(), mem: math.NaN()}
			ms[id] = m
		}
		if t > at {
			if typ == machineAdd && !m.seen {
				m.seen = true
				st.Later++
			}
			continue
		}
		m.seen = true
		switch typ {
		case machineRemove:
			m.up = false
			continue
		case machineAdd:
			m.up, m.added = true, true
		}
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
	ids := make([]int64, 0, len(ms))
	for id, m := range ms {
		switch {
		case m.up:
			ids = append(ids, id)
		case m.added:
			st.Gone++
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		m := ms[id]
		if math.IsNaN(m.cpu) || math.IsNaN(m.mem) || m.cpu == 0 && m.mem == 0 {
			st.Skipped++
			continue
		}
		// In range: each amount passed traces.CheckedAmount where it was read.
		c.Machines = append(c.Machines, traces.Machine{Name: "m" + strconv.FormatInt(id, 10), Capacity: traces.VecOf(m.cpu, m.mem), Platform: m.platform})
	}
	if len(c.Machines) == 0 {
		return c, st, fmt.Errorf("google2011: machine_events: no machine with a known capacity was up at t=%d", at)
	}
	return c, st, nil
}
