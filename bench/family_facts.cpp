#include "family_facts.hpp"

#include "json_text.hpp"

#include <fmt/format.h>

namespace gpubench::bench {
namespace {

std::string quoted(std::string_view text) { return fmt::format("\"{}\"", json_escape(text)); }

std::string argument_json(const std::optional<Argument>& argument) {
  if (!argument) {
    return "null";
  }
  return fmt::format("{{\"key\": {}, \"unit\": {}}}", quoted(argument->key),
                     quoted(argument->unit));
}

std::string figure_json(const Figure& figure) {
  // {:g} keeps 1e-09 and 1 exact, and both are JSON numbers.
  return fmt::format(
      "{{\"counter\": {}, \"unit\": {}, \"scale\": {:g}, \"better\": {}, \"panel\": {}}}",
      quoted(figure.counter), quoted(figure.unit), figure.scale,
      quoted(figure.better == Better::higher ? "higher" : "lower"), figure.panel);
}

std::string flag_json(const FamilyFlag& flag) {
  return fmt::format("{{\"name\": {}, \"default\": {}, \"help\": {}}}", quoted(flag.name),
                     quoted(flag.default_value), quoted(flag.help));
}

template <typename T, typename Format>
std::string list_json(const std::vector<T>& items, Format format, std::string_view indent) {
  if (items.empty()) {
    return "[]";
  }
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    text += fmt::format("{}\n{}  {}", i == 0 ? "" : ",", indent, format(items[i]));
  }
  return text + fmt::format("\n{}]", indent);
}

std::string family_json(const Family& family) {
  constexpr std::string_view indent = "      ";
  return fmt::format("{{\n"
                     "{0}\"name\": {1},\n"
                     "{0}\"order\": {2},\n"
                     "{0}\"grammar\": {3},\n"
                     "{0}\"argument\": {4},\n"
                     "{0}\"figures\": {5},\n"
                     "{0}\"flags\": {6}\n"
                     "    }}",
                     indent, quoted(family.name), family.order, quoted(family.grammar),
                     argument_json(family.argument), list_json(family.figures, figure_json, indent),
                     list_json(family.flags, flag_json, indent));
}

} // namespace

std::string family_facts_json(const std::vector<Family>& families) {
  return fmt::format("{{\n  \"schema\": 1,\n  \"families\": {}\n}}",
                     list_json(families, family_json, "  "));
}

} // namespace gpubench::bench
