package external

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/schedlab/schedlab/internal/datapath"
	"github.com/schedlab/schedlab/policies"
)

// Name is the registry name of the policy.
const Name = "external"

// Parameter keys (policy.params.*).
const (
	ParamCommand        = "command"
	ParamSocket         = "socket"
	ParamTimeout        = "timeout_s"
	ParamConnectTimeout = "connect_timeout_s"
	ParamArgs           = "args"
	ParamScriptSHA256   = "script_sha256"
)

// Defaults of the time limits.
const (
	DefaultTimeout        = 60 * time.Second
	DefaultConnectTimeout = 10 * time.Second
)

// settings are the validated parameters.
type settings struct {
	command        []string
	socket         string
	timeout        time.Duration
	connectTimeout time.Duration
	args           map[string]any
	scriptSHA256   string
	options        policies.Options
}

// parse validates the policy's parameters. Exactly one of command and socket is required.
func parse(o policies.Options) (*settings, error) {
	if err := policies.CheckParams(o.Params, ParamArgs, ParamCommand, ParamConnectTimeout, ParamScriptSHA256, ParamSocket, ParamTimeout); err != nil {
		return nil, err
	}
	s := &settings{timeout: DefaultTimeout, connectTimeout: DefaultConnectTimeout, options: o}
	if raw, ok := o.Params[ParamCommand]; ok && raw != nil {
		argv, err := parseArgv(raw)
		if err != nil {
			return nil, err
		}
		s.command = argv
	}
	if raw, ok := o.Params[ParamSocket]; ok && raw != nil {
		p, ok := policies.ParamString(raw)
		if !ok || p == "" {
			return nil, policies.ParamError(ParamSocket, "a Unix socket path", raw)
		}
		s.socket = p
	}
	switch {
	case s.command == nil && s.socket == "":
		return nil, fmt.Errorf("set policy.params.%s (the scheduler's argv) or policy.params.%s (a Unix socket it listens on)", ParamCommand, ParamSocket)
	case s.command != nil && s.socket != "":
		return nil, fmt.Errorf("policy.params.%s and policy.params.%s are exclusive: set one", ParamCommand, ParamSocket)
	}
	var err error
	if s.timeout, err = seconds(o.Params, ParamTimeout, DefaultTimeout); err != nil {
		return nil, err
	}
	if s.connectTimeout, err = seconds(o.Params, ParamConnectTimeout, DefaultConnectTimeout); err != nil {
		return nil, err
	}
	if raw, ok := o.Params[ParamArgs]; ok && raw != nil {
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, policies.ParamError(ParamArgs, "a map of settings for the scheduler", raw)
		}
		s.args = m
	}
	if raw, ok := o.Params[ParamScriptSHA256]; ok && raw != nil {
		h, ok := policies.ParamString(raw)
		if !ok || len(h) != 64 {
			return nil, policies.ParamError(ParamScriptSHA256, "the 64 hex digits of a SHA-256", raw)
		}
		if s.command == nil || len(s.command) < 2 {
			return nil, fmt.Errorf("policy.params.%s needs policy.params.%s naming a script as its second word", ParamScriptSHA256, ParamCommand)
		}
		s.scriptSHA256 = strings.ToLower(h)
	}
	return s, nil
}

// parseArgv reads command: a list of words, or one string split at white space.
func parseArgv(raw any) ([]string, error) {
	var argv []string
	switch x := raw.(type) {
	case string:
		argv = strings.Fields(x)
	case []string:
		argv = x
	case []any:
		for _, w := range x {
			s, ok := w.(string)
			if !ok {
				return nil, policies.ParamError(ParamCommand, "a list of words", raw)
			}
			argv = append(argv, s)
		}
	default:
		return nil, policies.ParamError(ParamCommand, "an argv list (or one string of words)", raw)
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, policies.ParamError(ParamCommand, "a non-empty argv list", raw)
	}
	argv = resolveWords(argv)
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, fmt.Errorf("policy.params.%s: cannot run %q: %v", ParamCommand, argv[0], unwrapExec(err))
	}
	return argv, nil
}

// unwrapExec drops exec.Error's repetition of the name.
func unwrapExec(err error) error {
	var e *exec.Error
	if errors.As(err, &e) {
		return e.Err
	}
	return err
}

// seconds reads an optional positive duration in seconds.
func seconds(params map[string]any, key string, def time.Duration) (time.Duration, error) {
	raw, ok := params[key]
	if !ok || raw == nil {
		return def, nil
	}
	f, ok := policies.ParamNumber(raw)
	if !ok || !(f > 0) || math.IsInf(f, 0) || f > 86400 {
		return 0, policies.ParamError(key, "a number of seconds in (0, 86400]", raw)
	}
	return time.Duration(f * float64(time.Second)), nil
}

// FileSHA256 returns the hex SHA-256 of a file's content: the value policy.params.script_sha256
// wants for a script, so that a sweep's cache key changes when the script does.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkScript verifies that the script the command names has the pinned content hash.
func (s *settings) checkScript() error {
	if s.scriptSHA256 == "" {
		return nil
	}
	got, err := FileSHA256(s.command[1])
	if err != nil {
		return fmt.Errorf("policy.params.%s: %v", ParamScriptSHA256, err)
	}
	if got != s.scriptSHA256 {
		return fmt.Errorf("policy.params.%s: %s has SHA-256 %s, the configuration pins %s (the script changed: update the pin)", ParamScriptSHA256, s.command[1], got, s.scriptSHA256)
	}
	return nil
}

// resolveWords returns argv with every relative path word that names nothing from the working
// directory but names a file of the schedlab repository (policies/external/python/examples/…)
// replaced by that file's absolute path, so that a command written from the repository root
// runs from any directory. Other words are kept as given.
func resolveWords(argv []string) []string {
	out := make([]string, len(argv))
	for i, w := range argv {
		out[i] = w
		if !strings.ContainsRune(w, '/') || filepath.IsAbs(w) {
			continue
		}
		if _, err := os.Stat(w); err == nil {
			continue
		}
		if full, ok, err := datapath.RepoFile(w); ok && err == nil {
			out[i] = full
		}
	}
	return out
}

// InputDigests returns the SHA-256 of every regular file that the command of an external
// policy's parameters names (a word after the program, or the program itself when written as a
// path), keyed by the word as given: what a sweep's cache key adds so that a changed script is
// recomputed. It is empty for parameters without a command, and ignores words naming no file.
func InputDigests(params map[string]any) map[string]string {
	raw, ok := params[ParamCommand]
	if !ok || raw == nil {
		return nil
	}
	words, err := parseArgv(raw) // resolved as the run resolves them
	if err != nil {
		return nil
	}
	given := wordsAsGiven(raw)
	digests := map[string]string{}
	for i, w := range words {
		if i == 0 && !strings.ContainsRune(given[0], '/') {
			continue // a program found on PATH (python3): its version is not the scheduler
		}
		if fi, err := os.Stat(w); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if h, err := FileSHA256(w); err == nil && i < len(given) {
			digests[given[i]] = h
		}
	}
	return digests
}

// wordsAsGiven splits a command parameter into its words without resolving them.
func wordsAsGiven(raw any) []string {
	switch x := raw.(type) {
	case string:
		return strings.Fields(x)
	case []string:
		return x
	case []any:
		var ws []string
		for _, w := range x {
			s, _ := w.(string)
			ws = append(ws, s)
		}
		return ws
	}
	return nil
}
