package strl

import (
	"fmt"

	"github.com/schedlab/schedlab/traces"
)

// ItemKind is the kind of an equivalence-set item.
type ItemKind uint8

// Equivalence-set items.
const (
	ItemMachine ItemKind = iota // the machine called Name
	ItemRack                    // every machine whose Rack is Name
	ItemGPU                     // every machine with a GPU
	ItemAll                     // every machine
)

// Item is one member of an equivalence set's union.
type Item struct {
	Kind ItemKind
	Name string // machine or rack name
}

// Set is an equivalence set: the union of its items' machines.
type Set struct {
	Items []Item
}

// Machines returns a set of the named machines.
func Machines(names ...string) Set {
	s := Set{Items: make([]Item, len(names))}
	for i, n := range names {
		s.Items[i] = Item{Kind: ItemMachine, Name: n}
	}
	return s
}

// Rack returns the set of rack r's machines.
func Rack(r string) Set { return Set{Items: []Item{{Kind: ItemRack, Name: r}}} }

// GPU returns the set of machines with a GPU.
func GPU() Set { return Set{Items: []Item{{Kind: ItemGPU}}} }

// All returns the set of every machine.
func All() Set { return Set{Items: []Item{{Kind: ItemAll}}} }

// Resolve marks in member (len(machines)) the machines of s and returns how many there are. A
// machine name that names no machine is an error; a rack with no machines adds none.
func (s Set) Resolve(machines []traces.Machine, member []bool, byName map[string]int) (int, error) {
	for i := range member {
		member[i] = false
	}
	n := 0
	mark := func(m int) {
		if !member[m] {
			member[m] = true
			n++
		}
	}
	for _, it := range s.Items {
		switch it.Kind {
		case ItemMachine:
			m, ok := byName[it.Name]
			if !ok {
				return 0, fmt.Errorf("strl: set %s: no machine %q", s, it.Name)
			}
			mark(m)
		case ItemRack:
			for m := range machines {
				if machines[m].Rack == it.Name {
					mark(m)
				}
			}
		case ItemGPU:
			for m := range machines {
				if machines[m].GPU {
					mark(m)
				}
			}
		case ItemAll:
			for m := range machines {
				mark(m)
			}
		default:
			return 0, fmt.Errorf("strl: set item of unknown kind %d", it.Kind)
		}
	}
	return n, nil
}

// String renders s in the text form, e.g. {rack=r0,m7}.
func (s Set) String() string {
	b := make([]byte, 0, 16)
	b = append(b, '{')
	for i, it := range s.Items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendItem(b, it)
	}
	return string(append(b, '}'))
}
