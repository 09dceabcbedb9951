package grpcx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	rpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// ErrUnknownMethod is the failure of a method name that the descriptor source does not have; the
// error that wraps it lists the services and methods the source has.
var ErrUnknownMethod = errors.New("grpcx: unknown method")

// The server reflection services, newest first: a server that lacks v1 may still have v1alpha.
// Both carry the same messages, so the v1 ones are sent on either.
const (
	reflV1      = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
	reflV1Alpha = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
)

// Resolver finds method descriptors by their full name, from a fixed set of files (compiled .proto
// files or a protoset) or from a server's reflection service. Make it with FromProto, FromProtoset
// or FromReflection. It is safe for concurrent use.
type Resolver struct {
	// files is the fixed set; nil for reflection.
	files *protoregistry.Files
	// cc is the connection to ask reflection on.
	cc grpc.ClientConnInterface

	mu    sync.Mutex
	known *protoregistry.Files // what reflection has given so far
	fdps  map[string]*descriptorpb.FileDescriptorProto
}

// FromProto compiles the .proto files at run time. A file is looked up in importPaths (in order),
// as a path of its own or, as protoc takes it, relative to one of them, and in its own directory
// when it lies in none of them; its imports are looked up likewise, the
// well-known google/protobuf files included. A syntax or link error names file:line:column.
func FromProto(ctx context.Context, importPaths []string, files ...string) (*Resolver, error) {
	if len(files) == 0 {
		return nil, errors.New("grpcx: no .proto file given")
	}
	paths := slices.Clone(importPaths)
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f
		if rel, ok := within(paths, f); ok {
			names[i] = rel
			continue
		}
		if underImportPath(paths, f) { // named as protoc names it: relative to an import path
			names[i] = filepath.ToSlash(f)
			continue
		}
		dir := filepath.Dir(f)
		if !slices.Contains(paths, dir) {
			paths = append(paths, dir)
		}
		names[i] = filepath.Base(f)
	}
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: paths}),
	}
	compiled, err := c.Compile(ctx, names...)
	if err != nil {
		return nil, fmt.Errorf("grpcx: compiling %s: %w", strings.Join(files, ", "), err)
	}
	reg := new(protoregistry.Files)
	for _, f := range compiled {
		if err := register(reg, f); err != nil {
			return nil, err
		}
	}
	return &Resolver{files: reg}, nil
}

// register adds f and its imports to reg, each once.
func register(reg *protoregistry.Files, f protoreflect.FileDescriptor) error {
	if _, err := reg.FindFileByPath(f.Path()); err == nil {
		return nil
	}
	imps := f.Imports()
	for i := range imps.Len() {
		if err := register(reg, imps.Get(i).FileDescriptor); err != nil {
			return err
		}
	}
	if err := reg.RegisterFile(f); err != nil {
		return fmt.Errorf("grpcx: %s: %w", f.Path(), err)
	}
	return nil
}

// underImportPath reports whether f, which is not a file of its own, names one relative to one of
// paths, as protoc and ghz take --proto with import paths.
func underImportPath(paths []string, f string) bool {
	if filepath.IsAbs(f) {
		return false
	}
	if _, err := os.Stat(f); err == nil {
		return false
	}
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join(p, f)); err == nil {
			return true
		}
	}
	return false
}

// within returns f relative to the first of paths that holds it.
func within(paths []string, f string) (string, bool) {
	for _, p := range paths {
		rel, err := filepath.Rel(p, f)
		if err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			if _, err := os.Stat(filepath.Join(p, rel)); err == nil {
				return filepath.ToSlash(rel), true
			}
		}
	}
	return "", false
}

// FromProtoset reads a protoset: a FileDescriptorSet in protobuf binary form, as
// `protoc --include_imports --descriptor_set_out` writes it.
func FromProtoset(path string) (*Resolver, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("grpcx: protoset: %w", err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("grpcx: protoset %s: not a FileDescriptorSet: %w", path, err)
	}
	reg, err := protodesc.NewFiles(&set)
	if err != nil {
		return nil, fmt.Errorf("grpcx: protoset %s: %w (was it written with --include_imports?)", path, err)
	}
	return &Resolver{files: reg}, nil
}

// FromReflection asks the server behind cc, through its reflection service (v1, else v1alpha),
// for the files that define the methods asked for, when they are first asked for.
func FromReflection(cc grpc.ClientConnInterface) *Resolver {
	return &Resolver{cc: cc, known: new(protoregistry.Files), fdps: map[string]*descriptorpb.FileDescriptorProto{}}
}

// SplitName splits a method's full name, "package.Service/Method" (with or without a leading
// slash, as in gRPC's :path) or "package.Service.Method" (as ghz writes it), into the service's
// full name and the method's name.
func SplitName(name string) (service, method string, err error) {
	n := strings.TrimPrefix(name, "/")
	i := strings.LastIndexByte(n, '/')
	if i < 0 {
		i = strings.LastIndexByte(n, '.')
	}
	if i <= 0 || i == len(n)-1 || strings.ContainsAny(n[:i], "/ ") || strings.ContainsAny(n[i+1:], "/. ") {
		return "", "", fmt.Errorf("grpcx: method %q: want package.Service/Method or package.Service.Method", name)
	}
	return n[:i], n[i+1:], nil
}

// Method returns the descriptor of the method named name (see SplitName). A method or service the
// source lacks is an error wrapping ErrUnknownMethod that lists what the source has.
func (r *Resolver) Method(ctx context.Context, name string) (protoreflect.MethodDescriptor, error) {
	svc, m, err := SplitName(name)
	if err != nil {
		return nil, err
	}
	files := r.files
	if files == nil {
		if files, err = r.reflect(ctx, svc); err != nil {
			if status.Code(err) == codes.NotFound {
				return nil, r.unknown(ctx, name)
			}
			return nil, err
		}
	}
	d, err := files.FindDescriptorByName(protoreflect.FullName(svc))
	if err != nil {
		return nil, r.unknown(ctx, name)
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, r.unknown(ctx, name)
	}
	md := sd.Methods().ByName(protoreflect.Name(m))
	if md == nil {
		return nil, r.unknown(ctx, name)
	}
	return md, nil
}

// Services returns the source's methods, "package.Service/Method", sorted; reflection's own
// service is left out.
func (r *Resolver) Services(ctx context.Context) ([]string, error) {
	var out []string
	add := func(sd protoreflect.ServiceDescriptor) {
		ms := sd.Methods()
		for i := range ms.Len() {
			out = append(out, string(sd.FullName())+"/"+string(ms.Get(i).Name()))
		}
	}
	if r.files != nil {
		r.files.RangeFiles(func(f protoreflect.FileDescriptor) bool {
			ss := f.Services()
			for i := range ss.Len() {
				add(ss.Get(i))
			}
			return true
		})
		slices.Sort(out)
		return out, nil
	}
	names, err := r.listServices(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range names {
		if strings.HasPrefix(s, "grpc.reflection.") {
			continue
		}
		files, err := r.reflect(ctx, s)
		if err != nil {
			out = append(out, s+"/?")
			continue
		}
		if d, err := files.FindDescriptorByName(protoreflect.FullName(s)); err == nil {
			if sd, ok := d.(protoreflect.ServiceDescriptor); ok {
				add(sd)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

func (r *Resolver) unknown(ctx context.Context, name string) error {
	have, err := r.Services(ctx)
	if err != nil {
		return fmt.Errorf("%w %q (listing the services failed: %v)", ErrUnknownMethod, name, err)
	}
	if len(have) == 0 {
		return fmt.Errorf("%w %q: the source has no services", ErrUnknownMethod, name)
	}
	return fmt.Errorf("%w %q; the source has: %s", ErrUnknownMethod, name, strings.Join(have, ", "))
}

// reflect returns the files known after asking reflection for the file that defines symbol and
// every file it imports.
func (r *Resolver) reflect(ctx context.Context, symbol string) (*protoregistry.Files, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.known.FindDescriptorByName(protoreflect.FullName(symbol)); err == nil {
		return r.known, nil
	}
	s, err := r.open(ctx)
	if err != nil {
		return nil, err
	}
	defer s.close()
	res, err := s.ask(&rpb.ServerReflectionRequest{MessageRequest: &rpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: symbol}})
	if err != nil {
		return nil, err
	}
	queue, err := r.take(res)
	if err != nil {
		return nil, err
	}
	for len(queue) > 0 { // fetch the imports reflection did not send along
		f := queue[0]
		queue = queue[1:]
		for _, dep := range f.GetDependency() {
			if _, ok := r.fdps[dep]; ok {
				continue
			}
			res, err := s.ask(&rpb.ServerReflectionRequest{MessageRequest: &rpb.ServerReflectionRequest_FileByFilename{FileByFilename: dep}})
			if err != nil {
				return nil, fmt.Errorf("grpcx: reflection: file %s: %w", dep, err)
			}
			more, err := r.take(res)
			if err != nil {
				return nil, err
			}
			queue = append(queue, more...)
		}
	}
	set := &descriptorpb.FileDescriptorSet{}
	for _, f := range r.fdps {
		set.File = append(set.File, f)
	}
	reg, err := protodesc.NewFiles(set)
	if err != nil {
		return nil, fmt.Errorf("grpcx: reflection: %w", err)
	}
	r.known = reg
	return reg, nil
}

// take records the files of a reflection answer and returns those it had not seen.
func (r *Resolver) take(res *rpb.ServerReflectionResponse) ([]*descriptorpb.FileDescriptorProto, error) {
	if e := res.GetErrorResponse(); e != nil {
		return nil, status.Error(codes.Code(e.GetErrorCode()), e.GetErrorMessage())
	}
	var fresh []*descriptorpb.FileDescriptorProto
	for _, b := range res.GetFileDescriptorResponse().GetFileDescriptorProto() {
		f := new(descriptorpb.FileDescriptorProto)
		if err := proto.Unmarshal(b, f); err != nil {
			return nil, fmt.Errorf("grpcx: reflection: a bad file descriptor: %w", err)
		}
		if _, ok := r.fdps[f.GetName()]; !ok {
			r.fdps[f.GetName()] = f
			fresh = append(fresh, f)
		}
	}
	return fresh, nil
}

func (r *Resolver) listServices(ctx context.Context) ([]string, error) {
	s, err := r.open(ctx)
	if err != nil {
		return nil, err
	}
	defer s.close()
	res, err := s.ask(&rpb.ServerReflectionRequest{MessageRequest: &rpb.ServerReflectionRequest_ListServices{ListServices: "*"}})
	if err != nil {
		return nil, err
	}
	if e := res.GetErrorResponse(); e != nil {
		return nil, status.Error(codes.Code(e.GetErrorCode()), e.GetErrorMessage())
	}
	var names []string
	for _, s := range res.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	return names, nil
}

// reflStream is one reflection stream.
type reflStream struct {
	cs     grpc.ClientStream
	cancel context.CancelFunc
}

var reflDesc = &grpc.StreamDesc{StreamName: "ServerReflectionInfo", ServerStreams: true, ClientStreams: true}

// open opens a reflection stream: v1, or v1alpha when the server lacks v1.
func (r *Resolver) open(ctx context.Context) (*reflStream, error) {
	var last error
	for _, m := range []string{reflV1, reflV1Alpha} {
		sctx, cancel := context.WithCancel(ctx)
		cs, err := r.cc.NewStream(sctx, reflDesc, m)
		if err == nil {
			s := &reflStream{cs: cs, cancel: cancel}
			// A stream opens without a round trip: the first answer says whether the server has it.
			_, err = s.ask(&rpb.ServerReflectionRequest{MessageRequest: &rpb.ServerReflectionRequest_ListServices{ListServices: "*"}})
			if err == nil {
				return s, nil
			}
		}
		cancel()
		last = err
		if status.Code(err) != codes.Unimplemented {
			break
		}
	}
	if status.Code(last) == codes.Unimplemented {
		return nil, fmt.Errorf("grpcx: the server has no reflection service; give the .proto files or a protoset: %w", last)
	}
	return nil, fmt.Errorf("grpcx: reflection: %w", last)
}

func (s *reflStream) ask(req *rpb.ServerReflectionRequest) (*rpb.ServerReflectionResponse, error) {
	if err := s.cs.SendMsg(req); err != nil {
		if rerr := s.cs.RecvMsg(new(rpb.ServerReflectionResponse)); rerr != nil {
			return nil, rerr // the stream's real error
		}
		return nil, err
	}
	res := new(rpb.ServerReflectionResponse)
	if err := s.cs.RecvMsg(res); err != nil {
		return nil, err
	}
	return res, nil
}

func (s *reflStream) close() {
	_ = s.cs.CloseSend()
	s.cancel()
}
