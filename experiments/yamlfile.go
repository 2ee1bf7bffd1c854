package experiments

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxYAMLBytes bounds the size of a spec file (and of each file it includes) and of a
// configuration file; the largest embedded spec is 11 kB.
const MaxYAMLBytes = 1 << 20

// MaxYAMLAliasNodes bounds the YAML nodes that aliases (*name) add to a spec or configuration
// file when expanded: a "billion laughs" of nested aliases is refused before anything walks it.
// The largest embedded spec has 403 nodes and no alias.
const MaxYAMLAliasNodes = 10_000

// ReadYAML reads r, a YAML file called name, of at most MaxYAMLBytes.
func ReadYAML(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxYAMLBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxYAMLBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes; a spec or configuration is a few kilobytes of YAML", name, MaxYAMLBytes)
	}
	return data, nil
}

// readSpecFile reads a spec file of fsys (ReadYAML).
func readSpecFile(fsys fs.FS, name string) ([]byte, error) {
	if fi, err := fs.Stat(fsys, name); err == nil {
		if err := checkMode(name, fi.Mode(), false); err != nil {
			return nil, err
		}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadYAML(f, name)
}

// DecodeYAML parses the one YAML document of data, read from file, which holds one (the
// holder: "a spec file"). A second document (after "---") is an error, not ignored; an empty one
// after a trailing "---" is allowed. So is aliasing that expands past MaxYAMLAliasNodes nodes.
// An empty file gives a document node without content. Errors wrap ErrConfig and name file and
// line.
func DecodeYAML(data []byte, file, holder string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc *yaml.Node
	for {
		d := new(yaml.Node) // a Node keeps aliases unexpanded
		err := dec.Decode(d)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %s", ErrConfig, file, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		if at, cycle := aliasBomb(d, MaxYAMLAliasNodes); cycle {
			return nil, fmt.Errorf("%w: %s:%d: alias *%s lies inside the node it names (its expansion never ends)", ErrConfig, file, at.Line, at.Value)
		} else if at != nil {
			return nil, fmt.Errorf("%w: %s:%d: excessive aliasing: YAML aliases expand the file past %d nodes (at alias *%s)", ErrConfig, file, at.Line, MaxYAMLAliasNodes, at.Value)
		}
		switch {
		case doc == nil || emptyDoc(doc):
			doc = d
		case !emptyDoc(d): // an empty document, e.g. after a trailing "---", is no second one
			return nil, fmt.Errorf("%w: %s:%d: a second YAML document; %s holds one", ErrConfig, file, d.Line, holder)
		}
	}
	if doc == nil {
		doc = &yaml.Node{Kind: yaml.DocumentNode}
	}
	return doc, nil
}

// emptyDoc reports whether a document holds nothing but a null.
func emptyDoc(d *yaml.Node) bool {
	return len(d.Content) == 0 || len(d.Content) == 1 && d.Content[0].Kind == yaml.ScalarNode && d.Content[0].Tag == "!!null"
}

// aliasBomb returns the alias node at which the nodes that aliases add to doc, counted in
// document order with every alias expanded, exceed limit; nil if they never do. cycle says the
// alias lies inside the node it names. Expanded sizes are memoized per node and saturate, so a
// nested alias bomb costs time in its written size only.
func aliasBomb(doc *yaml.Node, limit int64) (at *yaml.Node, cycle bool) {
	const busy = -1
	sizes := map[*yaml.Node]int64{}
	var size func(n *yaml.Node) int64 // n's nodes with its aliases expanded, at most limit+1
	size = func(n *yaml.Node) int64 {
		if s, ok := sizes[n]; ok {
			if s == busy {
				cycle = true
				return limit + 1
			}
			return s
		}
		sizes[n] = busy
		s := int64(1)
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			s = size(n.Alias)
		}
		for _, c := range n.Content {
			if s += size(c); s > limit {
				s = limit + 1
				break
			}
		}
		sizes[n] = s
		return s
	}
	var added int64
	var walk func(n *yaml.Node) *yaml.Node
	walk = func(n *yaml.Node) *yaml.Node {
		if n.Kind == yaml.AliasNode {
			if n.Alias != nil {
				if added += size(n.Alias); added > limit {
					return n
				}
			}
			return nil
		}
		for _, c := range n.Content {
			if at := walk(c); at != nil {
				return at
			}
		}
		return nil
	}
	at = walk(doc)
	return at, cycle && at != nil
}
