# app_record.rb -- the record the Ruby benchmarks build their heap from:
# 7 objects (instance variables, strings, an array, a symbol, a hash, a
# float, a Time), as an app's models hold them. Shared by ruby_bench.rb and
# ruby_walk_profile.rb, so that both measure the same heap shape.
class User
  def initialize(id)
    @id = id
    @name = "user #{id}"
    @email = "user#{id}@example.com"
    @tags = [:"tag#{id % 50}", "t#{id % 7}"]
    @prefs = { "lang" => "en", "n" => id, "score" => id * 0.5 }
    @created = Time.at(1_600_000_000 + id)
  end
end
