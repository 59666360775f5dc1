-- links.lua — the pandoc filter of tools/ci/html-book. A chapter is written for GitHub, where its
-- links are files of the repository; in the HTML book they must be its pages:
--   ../NN-slug/README.md#x, ../recaps/week-N.md   -> NN-slug.html#x, week-N.html  (one page: #x or #title)
--   ../../plots/P (an image or a link)             -> plots/P, copied next to the pages
--   #title-of-another-chapter (the glossary's)     -> that chapter's page
--   ../../any/other/file                           -> the file in the repository (HTML_BOOK_REPO)
-- It also links each plot to itself (a click shows it at full size), gives a code block without a
-- language one where the block is plainly shell commands or C, so that it is highlighted, wraps each
-- table so that a wide one scrolls instead of the page, and lists a page's sections (its ## headings)
-- at its top.
-- Read from the environment: HTML_BOOK_PAGES (a file of lines "page<TAB>title anchor<TAB>source",
-- source relative to the repository), HTML_BOOK_SOURCE (this page's source), HTML_BOOK_MODE
-- (pages, or single for the one-page book) and HTML_BOOK_REPO (the repository, seen from the pages).

local mode = os.getenv('HTML_BOOK_MODE') or 'pages'
local source = os.getenv('HTML_BOOK_SOURCE') or 'book.md'
local repo = os.getenv('HTML_BOOK_REPO') or '../..'

local page_of_source, page_of_anchor, anchor_of_page = {}, {}, {}
for line in io.lines(os.getenv('HTML_BOOK_PAGES')) do
  local page, anchor, src = line:match('^([^\t]+)\t([^\t]+)\t([^\t]+)$')
  if page then
    page_of_source[src] = page
    page_of_anchor[anchor] = page
    anchor_of_page[page] = anchor
  end
end
local this_page = page_of_source[source]

-- dir/../a/./b -> a/b, relative to the repository
local function normalise(path)
  local parts = {}
  for part in path:gmatch('[^/]+') do
    if part == '..' then
      if #parts > 0 and parts[#parts] ~= '..' then table.remove(parts) else table.insert(parts, '..') end
    elseif part ~= '.' then
      table.insert(parts, part)
    end
  end
  return table.concat(parts, '/')
end

local source_dir = source:match('^(.*)/[^/]*$') or '.'

local function rewrite(target)
  if target:match('^%a[%w+.-]*:') or target:match('^//') then return target end   -- http:, mailto:, ...
  if target:match('^[^/#]+%.html') then return target end                          -- a page of this book
  local path, fragment = target:match('^([^#]*)(#?.*)$')
  if path == '' then
    local page = page_of_anchor[fragment:sub(2)]
    if mode == 'pages' and page and page ~= this_page then return page end
    return target
  end
  local file = normalise(source_dir .. '/' .. path)
  local page = page_of_source[file]
  if page then
    if mode == 'single' then
      return fragment ~= '' and fragment or '#' .. anchor_of_page[page]
    end
    return (page == this_page and '' or page) .. fragment
  end
  if file:match('^plots/') then return file .. fragment end
  return repo .. '/' .. file .. fragment
end

function Link(link) link.target = rewrite(link.target); return link end
function Image(image) image.src = rewrite(image.src); return image end

-- A plot alone in its paragraph is drawn at the column's width; a click opens it at full size.
function Para(para)
  if #para.content == 1 and para.content[1].t == 'Image' then
    local image = para.content[1]
    return pandoc.Para({ pandoc.Link({ image }, image.src) })
  end
end

-- What a block without a language plainly is: commands (its first word one of the book's
-- commands) or C/CUDA (at least half its lines, and two or more, end in ; or { or start with }).
local commands = { make = true, ncu = true, nsys = true, nvcc = true, python = true, python3 = true,
  vllm = true, ['for'] = true, cd = true, export = true, ['llama-bench'] = true,
  ['llama-batched-bench'] = true, ['llama-cli'] = true, ['lib/sim/tools/simcc'] = true }
function CodeBlock(block)
  if block.classes[1] == 'sh' then block.classes[1] = 'bash'; return block end   -- the same, and pandoc loads it faster
  if #block.classes > 0 then return nil end
  local first = block.text:match('^%s*(%S+)')
  if first and commands[first] then block.classes = { 'bash' }; return block end
  local c_lines, lines = 0, 0
  for line in block.text:gmatch('[^\n]*%S[^\n]*') do
    lines = lines + 1
    if line:match(';%s*$') or line:match(';%s*/[/*]') or line:match('{%s*$') or line:match('^%s*}') then
      c_lines = c_lines + 1
    end
  end
  if c_lines >= 2 and 2 * c_lines >= lines then block.classes = { 'cpp' }; return block end
  return nil
end

function Table(tbl) return pandoc.Div({ tbl }, { class = 'table-wrap' }) end

-- "On this page": the ## headings, after the chapter's title and its one-line summary.
function Pandoc(doc)
  if mode ~= 'pages' then return nil end
  local items = {}
  for _, block in ipairs(doc.blocks) do
    if block.t == 'Header' and block.level == 2 and block.identifier ~= '' then
      table.insert(items, { pandoc.Plain({ pandoc.Link(block.content, '#' .. block.identifier) }) })
    end
  end
  if #items < 2 then return nil end
  local toc = pandoc.Div({ pandoc.Para({ pandoc.Strong({ pandoc.Str('On this page') }) }), pandoc.BulletList(items) },
                         { class = 'page-toc' })
  local at = 1
  for i, block in ipairs(doc.blocks) do
    if block.t == 'Header' and block.level == 1 then
      at = i + 1
      if doc.blocks[i + 1] and doc.blocks[i + 1].t == 'Para' then at = i + 2 end
      break
    end
  end
  table.insert(doc.blocks, at, toc)
  return doc
end
