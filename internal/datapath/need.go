package datapath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A Need is a file schedlab needs at run time that is neither compiled into it nor part of the
// shared data — the HiGHS solver's highs.wasm, installed by `schedlab solver install`. Find looks
// for it in these places, in order, the same from every working directory:
//
//  1. the file named by the environment variable Env, when set (a missing file there is an
//     error, not skipped);
//  2. Repo inside the working directory's repository (WorkRepo);
//  3. Repo inside the repository this binary was built from (BuildRepo);
//  4. Cache inside the user cache folder (UserCache).
type Need struct {
	Name  string // the file's name in messages: "highs.wasm"
	Env   string // environment variable naming the file itself, or ""
	Repo  string // slash path inside the repository: "third_party/highs/highs.wasm"
	Cache string // slash path inside UserCache(): "highs/highs.wasm"
	// Missing is the error Find's error wraps when the file is nowhere (default ErrNotFound).
	Missing error
}

// A Place is where a Need may be, and which rule put it on the list.
type Place struct {
	Path string
	From string // "$SCHEDLAB_HIGHS_WASM", "working directory's repository", "repository schedlab was built from", "user cache"
}

// Places returns where Find looks for n, in order, without duplicates.
func (n Need) Places() []Place {
	var out []Place
	add := func(p, from string) {
		for _, q := range out {
			if q.Path == p {
				return
			}
		}
		out = append(out, Place{Path: p, From: from})
	}
	if n.Env != "" {
		if p := os.Getenv(n.Env); p != "" {
			add(p, "$"+n.Env)
		}
	}
	if n.Repo != "" {
		if root, ok := WorkRepo(); ok {
			add(filepath.Join(root, filepath.FromSlash(n.Repo)), "working directory's repository")
		}
		if root, ok := BuildRepo(); ok {
			add(filepath.Join(root, filepath.FromSlash(n.Repo)), "repository schedlab was built from")
		}
	}
	if n.Cache != "" {
		if d, err := UserCache(); err == nil {
			add(filepath.Join(d, filepath.FromSlash(n.Cache)), "user cache")
		}
	}
	return out
}

// Find returns the first of n's Places that holds a regular file. The error, when there is none,
// wraps n.Missing (or ErrNotFound) and says where it looked; a file named by n.Env that is not
// there is an error naming the variable.
func (n Need) Find() (Place, error) {
	missing := n.Missing
	if missing == nil {
		missing = ErrNotFound
	}
	places := n.Places()
	var looked []string
	for _, p := range places {
		st, err := os.Stat(p.Path)
		if err == nil && st.Mode().IsRegular() {
			return p, nil
		}
		if p.From == "$"+n.Env {
			if err == nil {
				err = errors.New("not a regular file")
			}
			return Place{}, fmt.Errorf("%w: %s=%s: %v", missing, n.Env, p.Path, err)
		}
		looked = append(looked, p.Path)
	}
	if len(looked) == 0 {
		return Place{}, fmt.Errorf("%w (no place to look: not inside the schedlab repository, not built from one, no user cache folder)", missing)
	}
	return Place{}, fmt.Errorf("%w (looked in %s)", missing, strings.Join(looked, ", "))
}

// InstallPlace returns where an installer should put n so that Find finds it from every working
// directory: Repo inside the repository this binary was built from, else Cache inside the user
// cache folder. (The working directory's repository is not used: a binary built elsewhere would
// find the file only from inside it.)
func (n Need) InstallPlace() (Place, error) {
	if root, ok := BuildRepo(); ok && n.Repo != "" {
		return Place{Path: filepath.Join(root, filepath.FromSlash(n.Repo)), From: "repository schedlab was built from"}, nil
	}
	if n.Cache == "" {
		return Place{}, fmt.Errorf("no place to install %s: schedlab was not built from a repository that is still there", n.Name)
	}
	d, err := UserCache()
	if err != nil {
		return Place{}, fmt.Errorf("no place to install %s: schedlab was not built from a repository that is still there, and %v", n.Name, err)
	}
	return Place{Path: filepath.Join(d, filepath.FromSlash(n.Cache)), From: "user cache"}, nil
}

// FoundAnywhere reports whether path is a place Find looks at from every working directory: the
// file named by Env, Repo in the repository this binary was built from, or Cache in the user
// cache folder.
func (n Need) FoundAnywhere(path string) bool {
	var places []string
	if n.Env != "" && os.Getenv(n.Env) != "" {
		places = append(places, os.Getenv(n.Env))
	}
	if root, ok := BuildRepo(); ok && n.Repo != "" {
		places = append(places, filepath.Join(root, filepath.FromSlash(n.Repo)))
	}
	if d, err := UserCache(); err == nil && n.Cache != "" {
		places = append(places, filepath.Join(d, filepath.FromSlash(n.Cache)))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for _, p := range places {
		if q, err := filepath.Abs(p); err == nil && q == abs {
			return true
		}
	}
	return false
}

// UserCache returns schedlab's folder in the user cache directory: os.UserCacheDir()/schedlab.
func UserCache() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "schedlab"), nil
}
