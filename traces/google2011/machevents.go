package google2011

import (
	"io"
	"math"
	"strconv"

	"github.com/schedlab/schedlab/traces"
)

// # Machines that come and go
//
// With Options.ClusterEvents (and a cluster from machine_events), the machine_events after the
// cluster's time become the workload's ClusterEvents: an ADD of a machine that is down (removed
// earlier, or never up: it joins the cluster's machine list, after the others, down until then)
// adds it with its capacity (the last known where the event gives none), a REMOVE of an up
// machine removes it, an UPDATE of an up machine that changes its capacity resizes it. Events
// the life cycle does not allow (a REMOVE of a machine that is down, an ADD of one that is up)
// and machines whose capacity is never known are skipped.

// clusterEvents appends to cluster the machines machine_events add after at and returns the
// events after at, in file order (the trace's time order).
func clusterEvents(files []string, at traces.Time, cluster *traces.Cluster, opener func(string) (io.ReadCloser, error)) ([]traces.ClusterEvent, error) {
	type mstate struct {
		index    int32 // in cluster.Machines, -1 not yet listed
		cpu, mem float64
		up       bool
	}
	ms := make(map[int64]*mstate, len(cluster.Machines))
	for i, m := range cluster.Machines {
		id, err := strconv.ParseInt(m.Name[1:], 10, 64)
		if err == nil {
			ms[id] = &mstate{index: int32(i), cpu: m.Capacity.Float(0), mem: m.Capacity.Float(1), up: true}
		}
	}
	r := newLineReader(MachineEventsTable, machineEventNames[:], files)
	if opener != nil {
		r.opener = opener
	}
	defer r.close()
	var evs []traces.ClusterEvent
	var in strCache
	for {
		f, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		t, err := r.time(f, 0)
		if err != nil {
			return nil, err
		}
		id, err := r.uint(f, 1, true)
		if err != nil {
			return nil, err
		}
		typ, err := r.small(f, 2, machineAdd, machineUpdate, true)
		if err != nil {
			return nil, err
		}
		cpu, err := r.amount(f, 4)
		if err != nil {
			return nil, err
		}
		mem, err := r.amount(f, 5)
		if err != nil {
			return nil, err
		}
		m := ms[id]
		if t <= at {
			if m == nil && typ == machineAdd {
				// Known before the cluster's time but not in it (no capacity then, or removed):
				// remember its capacity for a later ADD.
				ms[id] = &mstate{index: -1, cpu: cpu, mem: mem}
			} else if m != nil && m.index < 0 {
				m.cpu, m.mem = pick(cpu, m.cpu), pick(mem, m.mem)
			}
			continue
		}
		if m == nil {
			m = &mstate{index: -1, cpu: math.NaN(), mem: math.NaN()}
			ms[id] = m
		}
		ncpu, nmem := pick(cpu, m.cpu), pick(mem, m.mem)
		switch typ {
		case machineAdd:
			if m.up || math.IsNaN(ncpu) || math.IsNaN(nmem) {
				continue
			}
			if m.index < 0 {
				m.index = int32(len(cluster.Machines))
				platform := ""
				if len(f[3]) > 0 {
					platform = in.get(f[3])
				}
				// In range: each amount passed traces.CheckedAmount where it was read.
				cluster.Machines = append(cluster.Machines, traces.Machine{Name: "m" + strconv.FormatInt(id, 10), Capacity: traces.VecOf(ncpu, nmem), Platform: platform})
			}
			m.up, m.cpu, m.mem = true, ncpu, nmem
			evs = append(evs, traces.ClusterEvent{T: t, Kind: traces.MachineAdd, Machine: m.index, Capacity: traces.VecOf(ncpu, nmem)})
		case machineRemove:
			if !m.up {
				continue
			}
			m.up = false
			evs = append(evs, traces.ClusterEvent{T: t, Kind: traces.MachineRemove, Machine: m.index})
		case machineUpdate:
			if !m.up || (ncpu == m.cpu && nmem == m.mem) {
				m.cpu, m.mem = ncpu, nmem
				continue
			}
			m.cpu, m.mem = ncpu, nmem
			evs = append(evs, traces.ClusterEvent{T: t, Kind: traces.MachineResize, Machine: m.index, Capacity: traces.VecOf(ncpu, nmem)})
		}
	}
	return evs, nil
}

// pick returns x unless it is missing (NaN), else old.
func pick(x, old float64) float64 {
	if math.IsNaN(x) {
		return old
	}
	return x
}
