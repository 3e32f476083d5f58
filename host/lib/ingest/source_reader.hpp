// The reading side of a sweep, on its worker thread: for each source in order it claims, reads
// whole lines from the cursor's offset, parses them through the claiming adapter (redacting as
// records arrive), attributes sessions to repositories, compresses payloads, and queues each
// write for the storing thread. It never touches the store: every cursor it needs was loaded
// before it starts.
#pragma once

#include "config/config.hpp"
#include "ingest/cursor_table.hpp"
#include "ingest/repo_resolver.hpp"
#include "ingest/source_file.hpp"
#include "ingest/step_queue.hpp"
#include "model/payload_pack.hpp"
#include "plugins/adapter_runner.hpp"
#include "plugins/plugin_registry.hpp"
#include "privacy/redactor.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace helix {

class SourceReader {
 public:
  SourceReader(const PluginRegistry& plugins, const Config& config, const SweepOptions& options,
               const SourceList& sources, CursorTable cursors, StepQueue& queue);
  ~SourceReader();
  SourceReader(const SourceReader&) = delete;
  SourceReader& operator=(const SourceReader&) = delete;

  // Visits every source, ending each visit with a step of its own. Throws StepQueue::Aborted
  // when the storing side gave up.
  void run();

 private:
  void visit(const DiscoveredSource& source, SweepReport& report);
  bool claim(SourceCursor& cursor, SourceFile& file, const DiscoveredSource& source,
             SweepReport& report);
  void read_claimed(SourceCursor& cursor, SourceFile& file, const PluginInfo& plugin, bool is_new,
                    SweepReport& report);
  bool needs_new_generation(const SourceCursor& cursor, SourceFile& file);
  void ingest_lines(SourceCursor& cursor, SourceFile& file, const AdapterRunner& adapter,
                    bool new_generation, SweepReport& report);
  // What read_whole_lines left in the read buffer.
  enum class ChunkRead { nothing, lines, finished_last_line, oversized_record };
  ChunkRead read_whole_lines(const SourceCursor& cursor, SourceFile& file);
  bool skip_oversized_record(SourceCursor& cursor, SourceFile& file, RecordBatch& batch);
  void parse_lines(SourceCursor& cursor, const AdapterRunner& adapter, RecordBatch& batch,
                   bool added_newline);
  void update_fingerprints(SourceCursor& cursor, SourceFile& file, int64_t pos);
  bool finished_last_line(const SourceCursor& cursor, std::string_view fragment) const;
  void ingest_document(SourceCursor& cursor, SourceFile& file, const AdapterRunner& adapter,
                       SweepReport& report);
  // Queues the cursor alone (claims, state changes), or a parsed chunk with its cursor.
  void save(SourceCursor& cursor);
  void stage_commit(SourceCursor& cursor, RecordBatch&& batch, bool new_generation,
                    int64_t input_bytes);
  // Hands a write to the storing thread, with the report changes made before it.
  void emit(SourceWrite write, int64_t bytes);
  const AdapterRunner& instance(const PluginInfo& plugin);
  // A quarantined source stays unread unless its file or its plugin changed since, or the
  // sweep was asked to retry. True when it is read again.
  bool retry_quarantined(SourceCursor& cursor, const PluginInfo* plugin, const FileIdentity& id,
                         SweepReport& report);
  // The plugin crashed, hung or ran out of memory on this source: it is left unread.
  void quarantine(SourceCursor& cursor, const PluginInfo& plugin, const std::string& what,
                  SweepReport& report);
  // The adapter's version asks for its sources to be read again (helix.reparse/1, or
  // sweep --reparse).
  bool needs_reparse(const SourceCursor& cursor, const PluginInfo& plugin) const;

  const PluginRegistry& plugins_;
  const Config& config_;
  const SweepOptions& options_;
  IsolationPolicy isolation_;
  const SourceList& sources_;
  StepQueue& queue_;
  CursorTable cursors_;
  RepoResolver repos_;
  std::optional<Redactor> redactor_;  // shared by every adapter instance
  std::map<std::string, std::unique_ptr<AdapterRunner>> instances_;
  std::string read_buffer_;  // reused across chunks and sources: no allocation per read
  PackCompressor packer_;    // compresses each batch's payload packs before the writer gets it
  SweepReport pending_;      // report changes not yet handed over
  std::size_t visit_ = 0;    // index of the source being visited
  int64_t next_provisional_id_ = -1;  // new sources, until the store gives them an id
};

}  // namespace helix
