// Universal Binary JSON as XGBoost writes it (docs/model-format.md, "UBJSON").
//
// Why not nlohmann's to_ubjson: it picks the smallest integer type for every length and count
// and types an array only when all its values happen to share the smallest type, where
// XGBoost writes int64 ('L') lengths and counts and types the tree arrays by field. Reading
// needs no such care: nlohmann's from_ubjson reads XGBoost's files (tested on the golden ones).
#include <cstring>
#include <map>
#include <string>

#include "common/error.h"
#include "model/xgboost_doc.h"

namespace ringboost::xgb {
namespace {

// Element type of the arrays XGBoost writes as typed arrays, by key.
const std::map<std::string, char>& TypedArrays() {
  static const std::map<std::string, char> types = {
      {"base_weights", 'd'},     {"loss_changes", 'd'},     {"split_conditions", 'd'},
      {"sum_hessian", 'd'},      {"left_children", 'l'},    {"right_children", 'l'},
      {"parents", 'l'},          {"split_indices", 'l'},    {"categories", 'l'},
      {"categories_nodes", 'l'}, {"feature_segments", 'l'}, {"sorted_idx", 'l'},
      {"default_left", 'U'},     {"split_type", 'U'},       {"categories_segments", 'L'},
      {"categories_sizes", 'L'}};
  return types;
}

class UbjWriter {
 public:
  std::string Take() { return std::move(out_); }

  void Value(const Json& v, const std::string& key) {
    switch (v.type()) {
      case Json::value_t::object:
        out_ += '{';
        for (auto it = v.begin(); it != v.end(); ++it) {
          Length(it.key().size());
          out_ += it.key();
          Value(it.value(), it.key());
        }
        out_ += '}';
        return;
      case Json::value_t::array: {
        auto typed = TypedArrays().find(key);
        if (typed != TypedArrays().end()) return TypedArray(v, typed->second);
        out_ += "[#";
        Length(v.size());
        for (const Json& e : v) Value(e, "");
        return;
      }
      case Json::value_t::string:
        out_ += 'S';
        Length(v.get_ref<const std::string&>().size());
        out_ += v.get_ref<const std::string&>();
        return;
      case Json::value_t::boolean:
        out_ += v.get<bool>() ? 'T' : 'F';
        return;
      case Json::value_t::number_float:
        out_ += 'd';
        BigEndian(v.get<float>());
        return;
      case Json::value_t::number_integer:
      case Json::value_t::number_unsigned:
        return Integer(v.get<int64_t>());
      default:
        out_ += 'Z';
    }
  }

 private:
  void TypedArray(const Json& v, char type) {
    out_ += "[$";
    out_ += type;
    out_ += '#';
    Length(v.size());
    for (const Json& e : v) {
      switch (type) {
        case 'd':
          BigEndian(e.get<float>());
          break;
        case 'l':
          BigEndian(static_cast<int32_t>(e.get<int64_t>()));
          break;
        case 'L':
          BigEndian(e.get<int64_t>());
          break;
        default:
          out_ += static_cast<char>(static_cast<uint8_t>(e.get<int64_t>()));
      }
    }
  }

  void Integer(int64_t x) {
    if (x >= INT8_MIN && x <= INT8_MAX) {
      out_ += 'i';
      out_ += static_cast<char>(static_cast<int8_t>(x));
    } else if (x >= INT16_MIN && x <= INT16_MAX) {
      out_ += 'I';
      BigEndian(static_cast<int16_t>(x));
    } else if (x >= INT32_MIN && x <= INT32_MAX) {
      out_ += 'l';
      BigEndian(static_cast<int32_t>(x));
    } else {
      out_ += 'L';
      BigEndian(x);
    }
  }

  void Length(std::size_t n) {
    out_ += 'L';
    BigEndian(static_cast<int64_t>(n));
  }

  template <typename T>
  void BigEndian(T value) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (int i = static_cast<int>(sizeof(T)) - 1; i >= 0; --i) out_ += static_cast<char>(bytes[i]);
  }

  std::string out_;
};

}  // namespace

std::string WriteUbj(const Json& root) {
  UbjWriter writer;
  writer.Value(root, "");
  return writer.Take();
}

}  // namespace ringboost::xgb
