//go:build unix

package canonical

import (
	"bytes"
	"fmt"
	"os"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// mapFile maps path read-only into memory and returns its bytes, a reader over them and a
// function that unmaps them. Pages are loaded by the kernel on demand, so mapping a large file
// costs nothing until it is read.
func mapFile(path string) ([]byte, ipc.ReadAtSeeker, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, nil, err
	}
	size := st.Size()
	if size == 0 {
		return []byte{}, bytes.NewReader(nil), func() error { return nil }, nil
	}
	if int64(int(size)) != size {
		return nil, nil, nil, fmt.Errorf("%s: file too large to map (%d bytes)", path, size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	return data, bytes.NewReader(data), func() error { return syscall.Munmap(data) }, nil
}
