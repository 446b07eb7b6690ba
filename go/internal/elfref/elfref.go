// SPDX-License-Identifier: MIT

// Package elfref is the reference the symlazy package is checked against:
// the uprobe offsets an agent computes with Go's debug/elf the way
// cilium/ebpf's link.Executable does (link/uprobe.go Executable.load: the
// STT_FUNC symbols of Symbols() then DynamicSymbols() into a map name ->
// {address, size}, the last one winning; address = st_value - p_vaddr +
// p_offset of the first PT_LOAD with PF_X holding st_value; an address of 0
// is refused as a library call). Tests and the benchmark only.
package elfref

import (
	"debug/elf"
	"errors"
)

// Sym is what cilium keeps per name.
type Sym struct {
	Addr, Size uint64
}

// Table is the map cilium/ebpf keeps for an Executable's lifetime.
type Table map[string]Sym

// Load builds cilium's map for the ELF file at path. When symtabFrom is not
// "", the .symtab comes from that file (a separate debug file) and .dynsym
// and the program headers from path: what an agent that follows
// debuglinks would do. Names lists every symbol name seen (any type, both
// tables, in table order) when names is not nil.
func Load(path, symtabFrom string, names *[]string) (Table, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return nil, errors.New("the given file is not an executable or a shared object")
	}
	sf := f
	if symtabFrom != "" {
		if sf, err = elf.Open(symtabFrom); err != nil {
			return nil, err
		}
		defer sf.Close()
	}
	syms, err := sf.Symbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return nil, err
	}
	dynsyms, err := f.DynamicSymbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return nil, err
	}
	syms = append(syms, dynsyms...)
	t := Table{}
	for _, s := range syms {
		if names != nil {
			*names = append(*names, s.Name)
		}
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC {
			continue
		}
		address := s.Value
		for _, prog := range f.Progs {
			if prog.Type != elf.PT_LOAD || (prog.Flags&elf.PF_X) == 0 {
				continue
			}
			if prog.Vaddr <= s.Value && s.Value < (prog.Vaddr+prog.Memsz) {
				address = s.Value - prog.Vaddr + prog.Off
				break
			}
		}
		t[s.Name] = Sym{address, s.Size}
	}
	return t, nil
}

// Offset is cilium's Executable.address for a symbol without
// UprobeOptions: the offset, or false (ErrNoSymbol, or the library-call
// refusal of an address 0).
func (t Table) Offset(name string) (uint64, bool) {
	s, ok := t[name]
	if !ok || s.Addr == 0 {
		return 0, false
	}
	return s.Addr, true
}
