//go:build linux

package monitor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The TCP byte counters of one socket, as the kernel's sock_diag netlink interface gives them in
// struct tcp_info: tcpi_bytes_sent (payload sent, retransmissions included; Linux 4.19) and
// tcpi_bytes_received (payload received in order; Linux 4.1).
var (
	offBytesSent     = int(unsafe.Offsetof(unix.TCPInfo{}.Bytes_sent))
	offBytesReceived = int(unsafe.Offsetof(unix.TCPInfo{}.Bytes_received))
)

// Layout of the inet_diag structures (linux/inet_diag.h), a stable ABI.
const (
	sizeofInetDiagReqV2 = 56 // family, protocol, ext, pad, states, inet_diag_sockid (48 bytes)
	sizeofInetDiagMsg   = 72 // family, state, timer, retrans, sockid, expires, rqueue, wqueue, uid, inode
	offDiagMsgInode     = 68
	inetDiagInfo        = 2 // INET_DIAG_INFO: the tcp_info attribute
)

// Socket states (include/net/tcp_states.h) that hold no socket of a process: a connection in
// TIME_WAIT, and one half-open on a listener (SYN_RECV, NEW_SYN_RECV), is a kernel's mini-socket
// without an inode until it is accepted.
const (
	tcpSynRecv    = 3
	tcpTimeWait   = 6
	tcpNewSynRecv = 12
)

// inodeStates is the states mask of the dump: every state but those, so that the kernel leaves
// them out rather than sending each to be dropped here. On a busy machine they are most of the
// namespace's sockets (3,700 of 3,740 in TIME_WAIT on a shared test machine).
const inodeStates = ^uint32(1<<tcpSynRecv | 1<<tcpTimeWait | 1<<tcpNewSynRecv)

// tcpSockets dumps the TCP sockets of this process's network namespace that can belong to a
// process (inodeStates), IPv4 and IPv6, through sock_diag, and returns the byte counters of each by
// its inode. Sockets without an inode are left out.
func tcpSockets() (map[uint64]SockReading, error) {
	out := make(map[uint64]SockReading)
	err := dumpTCP(inodeStates, func(m []byte) {
		if s, ok := parseDiagMsg(m); ok {
			out[s.Inode] = s
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// dumpTCP asks sock_diag for the TCP sockets of this process's network namespace in the states
// of the mask (bit 1<<state), IPv4 then IPv6, with their tcp_info, and calls fn with each
// inet_diag_msg and its attributes; fn must not keep the slice.
func dumpTCP(states uint32, fn func(msg []byte)) error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return fmt.Errorf("sock_diag: %w", err)
	}
	defer unix.Close(fd)
	// a reply that never comes is a failed read, not a sampler stuck for the rest of the run
	tv := unix.Timeval{Sec: 2}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return fmt.Errorf("sock_diag: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("sock_diag: %w", err)
	}
	for i, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		if err := dumpFamily(fd, family, uint32(i+1), states, fn); err != nil {
			return err
		}
	}
	return nil
}

func dumpFamily(fd int, family uint8, seq, states uint32, fn func(msg []byte)) error {
	req := make([]byte, unix.SizeofNlMsghdr+sizeofInetDiagReqV2)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	ne.PutUint32(req[8:], seq)
	body := req[unix.SizeofNlMsghdr:]
	body[0], body[1], body[2] = family, unix.IPPROTO_TCP, 1<<(inetDiagInfo-1)
	ne.PutUint32(body[4:], states)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("sock_diag: %w", err)
	}
	buf := make([]byte, 1<<16)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return fmt.Errorf("sock_diag: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return fmt.Errorf("sock_diag: %w", err)
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return nil
			case unix.NLMSG_ERROR:
				if len(m.Data) >= 4 {
					if errno := -int32(ne.Uint32(m.Data)); errno != 0 {
						return fmt.Errorf("sock_diag: %w", syscall.Errno(errno))
					}
				}
				return errors.New("sock_diag: error reply")
			case unix.SOCK_DIAG_BY_FAMILY:
				fn(m.Data)
			}
		}
	}
}

// parseDiagMsg reads one inet_diag_msg and its tcp_info attribute; ok is false for a socket with
// no inode or a tcp_info too short to hold the byte counters (a kernel before 4.19).
func parseDiagMsg(b []byte) (SockReading, bool) {
	if len(b) < sizeofInetDiagMsg {
		return SockReading{}, false
	}
	ne := binary.NativeEndian
	inode := uint64(ne.Uint32(b[offDiagMsgInode:]))
	if inode == 0 {
		return SockReading{}, false
	}
	for a := b[sizeofInetDiagMsg:]; len(a) >= unix.SizeofRtAttr; {
		l, typ := int(ne.Uint16(a[0:])), ne.Uint16(a[2:])
		if l < unix.SizeofRtAttr || l > len(a) {
			break
		}
		if typ == inetDiagInfo {
			return readingOf(inode, a[unix.SizeofRtAttr:l])
		}
		a = a[min(len(a), (l+unix.NLA_ALIGNTO-1)&^(unix.NLA_ALIGNTO-1)):]
	}
	return SockReading{}, false
}

// socketInodes returns the inodes of the sockets pid holds open, from the links in /proc/PID/fd.
// A descriptor closed while reading is skipped; an unreadable directory (another user's process)
// is an error.
func socketInodes(pid int) ([]uint64, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []uint64
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		if s, ok := strings.CutPrefix(link, "socket:["); ok {
			if n, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64); err == nil {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// ownTCPSockets returns the byte counters of this process's own TCP sockets, read with getsockopt
// TCP_INFO on each descriptor in /proc/self/fd that is a socket: what sock_diag would give for
// them, without dumping the namespace. A descriptor is taken only if it is the same socket (its
// inode) before and after the read, so that one closed and reused meanwhile is skipped rather
// than read as another socket; sockets of other protocols, and a tcp_info too short to hold the
// byte counters (a kernel before 4.19), are left out, as in the dump. An error (no descriptor left
// to read /proc/self/fd with, say) means the sockets are not known, not that there are none.
func ownTCPSockets() ([]SockReading, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	var out []SockReading
	var info [512]byte
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ino, ok := socketInode(fd)
		if !ok {
			continue
		}
		n := uint32(len(info))
		_, _, errno := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, unix.TCP_INFO,
			uintptr(unsafe.Pointer(&info[0])), uintptr(unsafe.Pointer(&n)), 0)
		if errno != 0 {
			continue // not TCP, or closed meanwhile
		}
		k, ok := readingOf(ino, info[:min(int(n), len(info))])
		if again, same := socketInode(fd); ok && same && again == ino {
			out = append(out, k) // else closed, and perhaps reused, meanwhile
		}
	}
	return out, nil
}

// readingOf reads the byte counters of socket inode from its struct tcp_info; ok is false when
// info is too short to hold them (a kernel before 4.19).
func readingOf(inode uint64, info []byte) (SockReading, bool) {
	if len(info) < offBytesSent+8 || len(info) < offBytesReceived+8 {
		return SockReading{}, false
	}
	ne := binary.NativeEndian
	return SockReading{Inode: inode, Sent: ne.Uint64(info[offBytesSent:]), Received: ne.Uint64(info[offBytesReceived:])}, true
}

// socketInode returns the inode of descriptor fd of this process if it is a socket.
func socketInode(fd int) (uint64, bool) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return 0, false
	}
	return st.Ino, true
}
