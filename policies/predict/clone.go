package predict

import "slices"

// Clone returns an independent copy of p: every group's history, scores and filtered history,
// and the candidates of jobs still pending. Predicting with or feeding either copy leaves the
// other unchanged, so one predictor warmed on a long trace can start many replays (the
// experiments layer's predict.warm). The cost is a copy of the state: O(groups + runtimes held
// by the median heaps).
func (p *JVu) Clone() *JVu {
	q := &JVu{
		opts: p.opts, slots: p.slots, ests: p.ests, nVar: p.nVar, pairs: p.pairs,
		rawMedian: p.rawMedian, filtMedian: p.filtMedian, ignored: p.ignored,
		values:  make([]map[string]*valueGroups, len(p.values)),
		pending: make(map[int64]*pendingJob, len(p.pending)),
	}
	groups := map[*group]*group{}
	cg := func(g *group) *group {
		if g == nil {
			return nil
		}
		if c, ok := groups[g]; ok {
			return c
		}
		c := &group{raw: g.raw.clone(), mean: g.mean, m2: g.m2, outliers: g.outliers, scores: slices.Clone(g.scores)}
		if g.filt != nil {
			f := g.filt.clone()
			c.filt = &f
		}
		groups[g] = c
		return c
	}
	vgs := map[*valueGroups]*valueGroups{}
	cv := func(v *valueGroups) *valueGroups {
		if v == nil {
			return nil
		}
		if c, ok := vgs[v]; ok {
			return c
		}
		c := &valueGroups{g: cg(v.g)}
		if v.sec != nil {
			c.sec = new([3]bucketGroups)
			for i, b := range v.sec {
				for _, e := range b.list {
					c.sec[i].list = append(c.sec[i].list, bucketGroup{e.bucket, cg(e.g)})
				}
				if b.m != nil {
					c.sec[i].m = make(map[int64]*group, len(b.m))
					for k, g := range b.m {
						c.sec[i].m[k] = cg(g)
					}
				}
			}
		}
		vgs[v] = c
		return c
	}
	for i, m := range p.values {
		q.values[i] = make(map[string]*valueGroups, len(m))
		for k, v := range m {
			q.values[i][k] = cv(v)
		}
	}
	q.all = cg(p.all)
	for id, pj := range p.pending {
		c := &pendingJob{preds: slices.Clone(pj.preds), vals: make([]*valueGroups, len(pj.vals))}
		for i, v := range pj.vals {
			c.vals[i] = cv(v)
		}
		q.pending[id] = c
	}
	return q
}

// clone returns a copy of h sharing no memory with it.
func (h *history) clone() history {
	c := *h
	c.med = medianHeap{lo: slices.Clone(h.med.lo), hi: slices.Clone(h.med.hi)}
	c.ring = slices.Clone(h.ring)
	return c
}
