// The man page and the bash, zsh and fish completions, generated from the command descriptions
// (commands.cpp) when the build runs `helix-host --generate KIND`: they cannot drift apart.
#include "cli/commands.hpp"

#include <fmt/format.h>
#include <helix/helix_plugin.h>

#include <algorithm>
#include <set>
#include <sstream>

namespace helix {
namespace po = boost::program_options;
namespace {

struct OptionDoc {
  std::string long_name, short_name, value, description;
  std::vector<std::string> choices;
};

// A command's options as documented: named options only (operands are in the usage line).
std::vector<OptionDoc> documented(const po::options_description& options,
                                  const po::positional_options_description& positional,
                                  const std::map<std::string, std::vector<std::string>>& choices) {
  std::set<std::string> operands;
  const unsigned count = std::min(positional.max_total_count(), 8u);
  for (unsigned i = 0; i < count; ++i) operands.insert(positional.name_for_position(i));
  std::vector<OptionDoc> out;
  for (const auto& o : options.options()) {
    if (operands.count(o->long_name())) continue;
    OptionDoc d{o->long_name(), "", "", o->description(), {}};
    const std::string shorter =
        o->canonical_display_name(po::command_line_style::allow_dash_for_short);
    if (shorter.size() == 2 && shorter[0] == '-') d.short_name = shorter.substr(1);
    if (o->semantic()->max_tokens() > 0) {
      d.value = o->format_parameter();
      d.value = d.value.substr(0, d.value.find(' '));
    }
    if (auto it = choices.find(d.long_name); it != choices.end()) d.choices = it->second;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<OptionDoc> command_docs(const CommandSpec& spec) {
  CommandOptions c;
  spec.describe(c);
  c.options.add_options()("help,h", "this help");
  return documented(c.options, c.positional, c.choices);
}

std::vector<OptionDoc> global_docs() {
  return documented(global_options(), po::positional_options_description(), global_choices());
}

// roff: backslashes and hyphens escaped, a leading dot or quote made literal.
std::string roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

void man_options(std::ostringstream& out, const std::vector<OptionDoc>& docs) {
  for (const auto& d : docs) {
    out << ".TP\n\\fB" << roff("--" + d.long_name) << "\\fR";
    if (!d.value.empty()) out << " \\fI" << roff(d.value) << "\\fR";
    if (!d.short_name.empty()) out << ", \\fB" << roff("-" + d.short_name) << "\\fR";
    out << "\n" << roff(d.description) << "\n";
  }
}

std::string man_page() {
  std::ostringstream out;
  out << ".TH HELIX\\-HOST 1 \"\" \"helix " << HELIX_VERSION << "\" \"User Commands\"\n"
      << ".SH NAME\nhelix\\-host \\- session memory for coding agents\n"
      << ".SH SYNOPSIS\n.B helix\\-host\n[\\fIglobal options\\fR] \\fIcommand\\fR "
         "[\\fIoptions\\fR]\n"
      << ".SH DESCRIPTION\n"
      << "helix\\-host sweeps the transcripts of coding agents (Claude Code, Codex CLI, Grok "
         "Build, ...) into one SQLite store through adapter plugins, digests every session, and "
         "answers questions about them: sessions, search, usage and cost, resume.\n"
      << "Sessions are named by their uid (\\fIflavor\\fR:\\fIid\\fR), by the agent's own id, or "
         "by a unique prefix of either.\n"
      << ".SH COMMANDS\n";
  for (const auto& spec : commands()) {
    out << ".SS \"" << roff(fmt::format("helix-host {} {}", spec.name, spec.operands)) << "\"\n"
        << roff(spec.summary) << ".\n";
    man_options(out, command_docs(spec));
    out << ".PP\nExamples:\n.nf\n";
    for (auto e : spec.examples) out << "  " << roff(e) << "\n";
    out << ".fi\n";
  }
  out << ".SH GLOBAL OPTIONS\n";
  man_options(out, global_docs());
  out << ".SH EXIT STATUS\n"
      << ".TP\n0\nsuccess (hook always exits 0)\n"
      << ".TP\n1\nthe session, digest or store asked for does not exist\n"
      << ".TP\n2\na bad command line or configuration; the message says what and where\n"
      << ".TP\n3\na fatal runtime error (store, I/O)\n"
      << ".TP\n4\nresume: the agent cannot resume the session (the reason is on stderr)\n"
      << ".TP\n74\nsweep: the store refused or lost writes (disk full, I/O error, locked past "
         "its busy timeout); only what was stored is counted, the next sweep reads the rest\n"
      << ".TP\n75\nanother sweep holds the store, or another process kept it locked past the "
         "busy timeout; try again later\n"
      << ".SH ENVIRONMENT\n"
      << ".TP\nHELIX_STORE_DB\nthe store: a directory, or the store file itself\n"
      << ".TP\nTZ\nthe time zone of days and dates unless \\-\\-timezone is given\n"
      << ".TP\nNO_COLOR\nno colour when set (as does TERM=dumb)\n"
      << ".TP\nPAGER\nthe pager of long output on a terminal (default: less)\n"
      << ".TP\nCOLUMNS\nthe width tables fit into\n"
      << ".TP\nXDG_CONFIG_HOME, XDG_DATA_HOME\nwhere the configuration and the store are\n"
      << ".SH FILES\n"
      << ".TP\n~/.config/helix/config.toml\nthe configuration (helix\\-host config prints it)\n"
      << ".TP\n~/.local/share/helix/helix.db\nthe store\n"
      << ".SH SEE ALSO\nThe documentation in /usr/share/doc/helix (operations.md, schema.md).\n";
  return out.str();
}

std::string words(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& w : list) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::vector<std::string> flags(const std::vector<OptionDoc>& docs) {
  std::vector<std::string> out;
  out.reserve(docs.size());
  for (const auto& d : docs) out.push_back("--" + d.long_name);
  return out;
}

std::string bash_completion() {
  std::ostringstream out;
  out << "# bash completion for helix-host (generated from its option descriptions)\n"
      << "_helix_host() {\n"
      << "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i\n"
      << "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      << "    case ${COMP_WORDS[i]} in\n"
      << "      --store|--config|--plugins|--timezone|-z|--color) ((i++)) ;;\n"
      << "      -*) ;;\n"
      << "      *) cmd=${COMP_WORDS[i]}; break ;;\n"
      << "    esac\n"
      << "  done\n"
      << "  case $prev in\n"
      << "    --store|--plugins) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
      << "    --config|--out|-o|--settings) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
      << "    --color) COMPREPLY=($(compgen -W 'auto always never' -- \"$cur\")); return ;;\n"
      << "  esac\n"
      << "  if [[ -z $cmd ]]; then\n"
      << "    COMPREPLY=($(compgen -W '" << words(command_names()) << " "
      << words(flags(global_docs())) << "' -- \"$cur\"))\n"
      << "    return\n"
      << "  fi\n"
      << "  case $cmd in\n";
  for (const auto& spec : commands()) {
    const auto docs = command_docs(spec);
    out << "    " << spec.name << ")\n      case $prev in\n";
    for (const auto& d : docs)
      if (!d.choices.empty())
        out << "        --" << d.long_name << ") COMPREPLY=($(compgen -W '" << words(d.choices)
            << "' -- \"$cur\")); return ;;\n";
    out << "      esac\n";
    CommandOptions c;
    spec.describe(c);
    std::string operands;
    for (const char* name : {"action", "agent", "report", "topic"})
      if (auto it = c.choices.find(name); it != c.choices.end())
        operands += " " + words(it->second);
    if (spec.name == "help") operands += " " + words(command_names());
    out << "      COMPREPLY=($(compgen -W '" << words(flags(docs)) << operands
        << "' -- \"$cur\")) ;;\n";
  }
  out << "  esac\n}\ncomplete -F _helix_host helix-host\n";
  return out.str();
}

// zsh _arguments specs: brackets and colons in descriptions escaped.
std::string zsh_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    if (c == '\'') {
      out += "'\\''";
      continue;
    }
    out += c;
  }
  return out;
}

std::string zsh_spec(const OptionDoc& d) {
  std::string spec = "--" + d.long_name;
  if (!d.value.empty()) spec += "=";
  spec += "[" + zsh_text(d.description) + "]";
  if (!d.value.empty()) {
    spec += ":" + zsh_text(d.value) + ":";
    if (!d.choices.empty())
      spec += "(" + words(d.choices) + ")";
    else if (d.long_name == "store" || d.long_name == "plugins")
      spec += "_files -/";
    else if (d.long_name == "config" || d.long_name == "out" || d.long_name == "settings")
      spec += "_files";
    else
      spec += " ";
  }
  return "'" + spec + "'";
}

std::string zsh_completion() {
  std::ostringstream out;
  out << "#compdef helix-host\n# zsh completion for helix-host (generated from its option "
         "descriptions)\n_helix_host() {\n  local -a commands\n  commands=(\n";
  for (const auto& spec : commands())
    out << "    '" << spec.name << ":" << zsh_text(spec.summary) << "'\n";
  out << "  )\n  local -a globals\n  globals=(\n";
  for (const auto& d : global_docs()) out << "    " << zsh_spec(d) << "\n";
  out << "  )\n"
      << "  _arguments -C $globals '1: :->command' '*:: :->args' && return\n"
      << "  case $state in\n"
      << "    command) _describe -t commands 'helix-host command' commands ;;\n"
      << "    args)\n      case $words[1] in\n";
  for (const auto& spec : commands()) {
    out << "        " << spec.name << ") _arguments";
    for (const auto& d : command_docs(spec)) out << " \\\n            " << zsh_spec(d);
    CommandOptions c;
    spec.describe(c);
    for (const char* name : {"action", "agent", "report", "topic"})
      if (auto it = c.choices.find(name); it != c.choices.end())
        out << " \\\n            '*:" << name << ":(" << words(it->second) << ")'";
    out << " ;;\n";
  }
  out << "      esac ;;\n  esac\n}\n_helix_host \"$@\"\n";
  return out.str();
}

std::string fish_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

void fish_option(std::ostringstream& out, const std::string& condition, const OptionDoc& d) {
  out << "complete -c helix-host" << condition << " -l " << d.long_name;
  if (!d.short_name.empty()) out << " -s " << d.short_name;
  if (!d.value.empty()) out << (d.choices.empty() ? " -r" : " -x -a '" + words(d.choices) + "'");
  out << " -d '" << fish_text(d.description) << "'\n";
}

std::string fish_completion() {
  std::ostringstream out;
  out << "# fish completion for helix-host (generated from its option descriptions)\n"
      << "complete -c helix-host -f\n";
  const std::string commands_list = words(command_names());
  for (const auto& d : global_docs()) fish_option(out, "", d);
  for (const auto& spec : commands()) {
    out << "complete -c helix-host -n 'not __fish_seen_subcommand_from " << commands_list << "' -a "
        << spec.name << " -d '" << fish_text(spec.summary) << "'\n";
    const std::string condition = fmt::format(" -n '__fish_seen_subcommand_from {}'", spec.name);
    for (const auto& d : command_docs(spec)) fish_option(out, condition, d);
    CommandOptions c;
    spec.describe(c);
    for (const char* name : {"action", "agent", "report"})
      if (auto it = c.choices.find(name); it != c.choices.end())
        out << "complete -c helix-host" << condition << " -a '" << words(it->second) << "'\n";
  }
  return out.str();
}

}  // namespace

std::string generated_file(std::string_view kind) {
  if (kind == "man") return man_page();
  if (kind == "bash") return bash_completion();
  if (kind == "zsh") return zsh_completion();
  if (kind == "fish") return fish_completion();
  throw UsageError(fmt::format("--generate takes man, bash, zsh or fish, not '{}'", kind));
}

}  // namespace helix
