//go:build !unix

package canonical

import (
	"os"

	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// mapFile opens path for positioned reads; platforms without mmap read through the file (the
// returned bytes are nil).
func mapFile(path string) ([]byte, ipc.ReadAtSeeker, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	return nil, f, f.Close, nil
}
