-- wrk: GET {prefix}{a random line of the file}, both given after --: the prefix ends with "?cve=" or similar
local prefix, values = nil, {}
init = function(args)
  prefix = args[1]
  for line in io.lines(args[2]) do values[#values + 1] = line end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
end
request = function() return wrk.format("GET", prefix .. values[math.random(#values)]) end
