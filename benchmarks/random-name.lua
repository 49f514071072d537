-- wrk: GET /f75/pkg/{a random line of the names file given after --}
local names = {}
init = function(args)
  for line in io.lines(args[1]) do names[#names + 1] = line end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
end
request = function() return wrk.format("GET", "/f75/pkg/" .. names[math.random(#names)]) end
