#include "tools/plugin-check/symbols.h"

#include <elf.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace agentrt::plugin_check {
namespace {

std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

template <typename T>
bool read_at(const std::string& file, uint64_t offset, T* out) {
  if (offset > file.size() || file.size() - offset < sizeof(T)) return false;
  std::memcpy(out, file.data() + offset, sizeof(T));
  return true;
}

}  // namespace

std::optional<std::vector<std::string>> symbols_by_nm(const std::string& path) {
  const std::string command = "nm -D --defined-only " + shell_quoted(path) + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return std::nullopt;
  std::vector<std::string> symbols;
  std::array<char, 1024> line{};
  while (fgets(line.data(), line.size(), pipe)) {
    std::istringstream fields(line.data());
    std::string address, type, name;
    fields >> address >> type >> name;
    if (!address.empty()) symbols.push_back(name.empty() ? address : name);
  }
  const int status = pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return symbols;
}

std::optional<std::vector<std::string>> symbols_by_elf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr header;
  if (!read_at(file, 0, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr))
    return std::nullopt;
  auto section = [&](uint64_t index, Elf64_Shdr* out) {
    return index < header.e_shnum &&
           read_at(file, header.e_shoff + index * sizeof(Elf64_Shdr), out);
  };
  std::vector<std::string> symbols;
  for (uint64_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr dynsym, strtab;
    if (!section(i, &dynsym) || dynsym.sh_type != SHT_DYNSYM) continue;
    if (!section(dynsym.sh_link, &strtab) || strtab.sh_offset > file.size()) return std::nullopt;
    for (uint64_t at = sizeof(Elf64_Sym); at + sizeof(Elf64_Sym) <= dynsym.sh_size;
         at += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol;
      if (!read_at(file, dynsym.sh_offset + at, &symbol)) return std::nullopt;
      // Undefined ones are imports; absolute ones name symbol versions, not code.
      if (symbol.st_shndx == SHN_UNDEF || symbol.st_shndx == SHN_ABS) continue;
      if (symbol.st_name >= strtab.sh_size) return std::nullopt;
      const char* name = file.data() + strtab.sh_offset + symbol.st_name;
      symbols.emplace_back(name, strnlen(name, file.size() - strtab.sh_offset - symbol.st_name));
    }
  }
  return symbols;
}

Outcome exported_symbols(const std::string& path) {
  std::string how = "nm -D";
  std::optional<std::vector<std::string>> symbols = symbols_by_nm(path);
  if (!symbols) {
    how = "the ELF dynamic symbol table";
    symbols = symbols_by_elf(path);
  }
  if (!symbols) return {Result::skip, "neither nm nor an ELF reader could list the symbols"};
  if (symbols->size() == 1 && symbols->front() == AGENTRT_PLUGIN_QUERY_SYMBOL)
    return {Result::pass, "only " AGENTRT_PLUGIN_QUERY_SYMBOL " (" + how + ")"};
  std::string list;
  for (size_t i = 0; i < symbols->size() && i < 5; ++i) list += (i ? ", " : "") + (*symbols)[i];
  if (symbols->size() > 5) list += ", ...";
  return {Result::fail, std::to_string(symbols->size()) + " symbols exported (" + how +
                            "), expected only " AGENTRT_PLUGIN_QUERY_SYMBOL ": " + list +
                            " (use the SDK's version script, agentrt-plugin.map)"};
}

}  // namespace agentrt::plugin_check
