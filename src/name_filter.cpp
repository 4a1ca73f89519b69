#include "name_filter.hpp"

#include <fmt/format.h>

#include <cctype>
#include <limits>
#include <string>
#include <utility>

namespace gpubench {
namespace {

using Kind = NameFilter::Kind;
using State = NameFilter::State;

// The filter as parsed: what the automaton is built from.
struct Node {
  enum class Type { bytes, concat, alternate, repeat, line_begin, line_end };
  Type type = Type::concat;
  std::bitset<256> bytes;
  std::vector<Node> children;
  int min = 0;
  int max = 0; // -1: unbounded
};

constexpr int unbounded = -1;

Node node_of(Node::Type type) {
  Node node;
  node.type = type;
  return node;
}

State state_of(Kind kind, int next, int alt = -1) {
  State state;
  state.kind = kind;
  state.next = next;
  state.alt = alt;
  return state;
}

[[noreturn]] void refuse(const std::string& reason) { throw std::invalid_argument(reason); }

struct ClassName {
  std::string_view name;
  int (*test)(int);
};

constexpr ClassName class_names[] = {
    {"alnum", [](int c) { return std::isalnum(c); }},
    {"alpha", [](int c) { return std::isalpha(c); }},
    {"blank", [](int c) { return std::isblank(c); }},
    {"cntrl", [](int c) { return std::iscntrl(c); }},
    {"digit", [](int c) { return std::isdigit(c); }},
    {"graph", [](int c) { return std::isgraph(c); }},
    {"lower", [](int c) { return std::islower(c); }},
    {"print", [](int c) { return std::isprint(c); }},
    {"punct", [](int c) { return std::ispunct(c); }},
    {"space", [](int c) { return std::isspace(c); }},
    {"upper", [](int c) { return std::isupper(c); }},
    {"xdigit", [](int c) { return std::isxdigit(c); }},
};

class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

  Node parse() {
    Node node = alternation();
    if (pos_ < text_.size()) {
      refuse(fmt::format("unmatched ')' at character {}", pos_ + 1));
    }
    return node;
  }

private:
  Node alternation() {
    Node node = node_of(Node::Type::alternate);
    node.children.push_back(sequence());
    while (pos_ < text_.size() && text_[pos_] == '|') {
      ++pos_;
      node.children.push_back(sequence());
    }
    return node.children.size() == 1 ? std::move(node.children.front()) : node;
  }

  Node sequence() {
    Node node = node_of(Node::Type::concat);
    while (pos_ < text_.size() && text_[pos_] != '|' && text_[pos_] != ')') {
      Node item = atom();
      while (pos_ < text_.size() && is_quantifier(text_[pos_])) {
        item = quantified(std::move(item));
      }
      node.children.push_back(std::move(item));
    }
    return node;
  }

  static bool is_quantifier(char c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

  Node atom() {
    const std::size_t at = pos_;
    const char c = text_[pos_++];
    switch (c) {
    case '(': {
      Node group = alternation();
      if (pos_ >= text_.size() || text_[pos_] != ')') {
        refuse(fmt::format("unmatched '(' at character {}", at + 1));
      }
      ++pos_;
      return group;
    }
    case '.': {
      Node any = node_of(Node::Type::bytes);
      any.bytes.set();
      any.bytes.reset('\n');
      return any;
    }
    case '[':
      return bracket(at);
    case '^':
      return node_of(Node::Type::line_begin);
    case '$':
      return node_of(Node::Type::line_end);
    case '\\': {
      if (pos_ >= text_.size()) {
        refuse("a '\\' ends it, escaping nothing");
      }
      const char escaped = text_[pos_++];
      if (std::isalnum(static_cast<unsigned char>(escaped)) != 0) {
        refuse(
            fmt::format("'\\{}' at character {} is not an escape POSIX defines", escaped, at + 1));
      }
      return literal(escaped);
    }
    case '*':
    case '+':
    case '?':
    case '{':
      refuse(fmt::format("'{}' at character {} repeats nothing", c, at + 1));
    default:
      return literal(c);
    }
  }

  static Node literal(char c) {
    Node node = node_of(Node::Type::bytes);
    node.bytes.set(static_cast<unsigned char>(c));
    return node;
  }

  // [abc], [^a-z], []x], [[:digit:]]: a '\' inside is itself, as POSIX says.
  Node bracket(std::size_t at) {
    Node node = node_of(Node::Type::bytes);
    const bool negated = pos_ < text_.size() && text_[pos_] == '^';
    pos_ += negated ? 1 : 0;
    bool first = true;
    while (true) {
      if (pos_ >= text_.size()) {
        refuse(fmt::format("unmatched '[' at character {}", at + 1));
      }
      const char c = text_[pos_];
      if (c == ']' && !first) {
        ++pos_;
        break;
      }
      first = false;
      if (c == '[' && pos_ + 1 < text_.size() &&
          (text_[pos_ + 1] == ':' || text_[pos_ + 1] == '=' || text_[pos_ + 1] == '.')) {
        char_class(node, at);
        continue;
      }
      ++pos_;
      if (pos_ + 1 < text_.size() && text_[pos_] == '-' && text_[pos_ + 1] != ']') {
        const auto low = static_cast<unsigned char>(c);
        const auto high = static_cast<unsigned char>(text_[pos_ + 1]);
        if (high < low) {
          refuse(fmt::format("range '{}-{}' at character {} runs backwards", c, text_[pos_ + 1],
                             pos_));
        }
        for (unsigned b = low; b <= high; ++b) {
          node.bytes.set(b);
        }
        pos_ += 2;
      } else {
        node.bytes.set(static_cast<unsigned char>(c));
      }
    }
    if (negated) {
      node.bytes.flip();
    }
    return node;
  }

  void char_class(Node& node, std::size_t at) {
    const char kind = text_[pos_ + 1];
    const std::size_t close = text_.find(std::string{kind, ']'}, pos_ + 2);
    if (close == std::string_view::npos) {
      refuse(fmt::format("unmatched '[{}' at character {}", kind, pos_ + 1));
    }
    if (kind != ':') {
      refuse(fmt::format("'[{}' (collating elements, equivalence classes) at character {} is "
                         "not supported",
                         kind, pos_ + 1));
    }
    const std::string_view name = text_.substr(pos_ + 2, close - pos_ - 2);
    for (const ClassName& known : class_names) {
      if (known.name == name) {
        for (int b = 0; b < 256; ++b) {
          if (known.test(b) != 0) {
            node.bytes.set(static_cast<std::size_t>(b));
          }
        }
        pos_ = close + 2;
        return;
      }
    }
    refuse(fmt::format("'[:{}:]' in the '[' at character {} is no character class", name, at + 1));
  }

  Node quantified(Node item) {
    const std::size_t at = pos_;
    const char c = text_[pos_++];
    Node node = node_of(Node::Type::repeat);
    if (c == '*') {
      node.min = 0;
      node.max = unbounded;
    } else if (c == '+') {
      node.min = 1;
      node.max = unbounded;
    } else if (c == '?') {
      node.min = 0;
      node.max = 1;
    } else {
      node.min = count(at);
      node.max = node.min;
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        node.max = pos_ < text_.size() && text_[pos_] == '}' ? unbounded : count(at);
      }
      if (pos_ >= text_.size() || text_[pos_] != '}') {
        refuse(fmt::format("the '{{' at character {} is not {{m}}, {{m,}} or {{m,n}}", at + 1));
      }
      ++pos_;
      if (node.max != unbounded && node.max < node.min) {
        refuse(fmt::format("'{}' at character {} repeats at least more than at most",
                           text_.substr(at, pos_ - at), at + 1));
      }
    }
    node.children.push_back(std::move(item));
    return node;
  }

  int count(std::size_t at) {
    int value = 0;
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])) != 0) {
      value = std::min(value * 10 + (text_[pos_] - '0'), NameFilter::max_repeat + 1);
      ++pos_;
    }
    if (pos_ == begin) {
      refuse(fmt::format("the '{{' at character {} is not {{m}}, {{m,}} or {{m,n}}", at + 1));
    }
    if (value > NameFilter::max_repeat) {
      refuse(fmt::format("the '{{' at character {} repeats more than {} times", at + 1,
                         NameFilter::max_repeat));
    }
    return value;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// Builds the automaton back to front: each node's states lead on to `next`.
class Builder {
public:
  explicit Builder(std::vector<State>& states) : states_(states) {}

  int build(const Node& node, int next) {
    switch (node.type) {
    case Node::Type::bytes: {
      State state = state_of(Kind::bytes, next);
      state.bytes = node.bytes;
      return add(state);
    }
    case Node::Type::line_begin:
      return add(state_of(Kind::line_begin, next));
    case Node::Type::line_end:
      return add(state_of(Kind::line_end, next));
    case Node::Type::concat:
      for (auto child = node.children.rbegin(); child != node.children.rend(); ++child) {
        next = build(*child, next);
      }
      return next;
    case Node::Type::alternate: {
      int start = build(node.children.back(), next);
      for (auto child = node.children.rbegin() + 1; child != node.children.rend(); ++child) {
        start = add(state_of(Kind::split, build(*child, next), start));
      }
      return start;
    }
    case Node::Type::repeat:
      return repeat(node, next);
    }
    return next;
  }

private:
  int repeat(const Node& node, int next) {
    const Node& child = node.children.front();
    int start = next;
    if (node.max == unbounded) {
      const int loop = add(state_of(Kind::split, -1, next));
      states_[static_cast<std::size_t>(loop)].next = build(child, loop);
      start = loop;
    } else {
      for (int i = node.min; i < node.max; ++i) {
        start = add(state_of(Kind::split, build(child, start), next));
      }
    }
    for (int i = 0; i < node.min; ++i) {
      start = build(child, start);
    }
    return start;
  }

  int add(State state) {
    if (states_.size() >= NameFilter::max_states) {
      refuse(fmt::format("it needs more than {} states to match (each {{m,n}} copies what it "
                         "repeats)",
                         NameFilter::max_states));
    }
    states_.push_back(state);
    return static_cast<int>(states_.size()) - 1;
  }

  std::vector<State>& states_;
};

} // namespace

NameFilter::NameFilter(std::string_view filter, std::size_t max_steps) : max_steps_(max_steps) {
  if (filter.size() > max_chars) {
    refuse(
        fmt::format("{} characters, more than the {} a filter may have", filter.size(), max_chars));
  }
  if (filter.empty() || filter == "all") {
    every_name_ = true;
    return;
  }
  negated_ = filter.starts_with('-');
  if (negated_) {
    filter.remove_prefix(1);
  }
  const Node root = Parser(filter).parse();
  Builder builder(states_);
  const int match = static_cast<int>(states_.size());
  states_.push_back(state_of(Kind::match, -1));
  start_ = builder.build(root, match);
}

bool NameFilter::selects(std::string_view name) const {
  return every_name_ || search(name) != negated_;
}

// Every state the automaton can be in, followed in step: a name of n bytes costs at most
// n + 1 passes over the states.
bool NameFilter::search(std::string_view name) const {
  const std::size_t count = states_.size();
  std::vector<int> current;
  std::vector<int> next;
  std::vector<std::size_t> seen(count, std::numeric_limits<std::size_t>::max());
  std::vector<int> stack;
  current.reserve(count);
  next.reserve(count);
  // Adds `from` and every state reached from it without reading a byte, at `pos`; true once
  // the match state is among them.
  const auto reach = [&](int from, std::size_t pos, std::vector<int>& into) {
    stack.push_back(from);
    while (!stack.empty()) {
      const int s = stack.back();
      stack.pop_back();
      const auto index = static_cast<std::size_t>(s);
      if (seen[index] == pos) {
        continue;
      }
      seen[index] = pos;
      if (++steps_ > max_steps_) {
        throw std::length_error(fmt::format(
            "matching it visited more than {} states of its automaton over the benchmarks' "
            "names; a simpler filter, or fewer --sizes",
            max_steps_));
      }
      const State& state = states_[index];
      switch (state.kind) {
      case Kind::bytes:
        into.push_back(s);
        break;
      case Kind::split:
        stack.push_back(state.alt);
        stack.push_back(state.next);
        break;
      case Kind::line_begin:
        if (pos == 0) {
          stack.push_back(state.next);
        }
        break;
      case Kind::line_end:
        if (pos == name.size()) {
          stack.push_back(state.next);
        }
        break;
      case Kind::match:
        stack.clear();
        return true;
      }
    }
    return false;
  };
  for (std::size_t pos = 0;; ++pos) {
    // A search: a match may start at every position.
    if (reach(start_, pos, current)) {
      return true;
    }
    if (pos == name.size()) {
      return false;
    }
    const auto byte = static_cast<unsigned char>(name[pos]);
    next.clear();
    for (const int s : current) {
      const State& state = states_[static_cast<std::size_t>(s)];
      if (state.bytes.test(byte) && reach(state.next, pos + 1, next)) {
        return true;
      }
    }
    std::swap(current, next);
  }
}

} // namespace gpubench
