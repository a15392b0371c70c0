/**
 * Progressive discovery (decisions 215–217): what `mcp-live serve --progressive` saves, and
 * whether its search finds the tool a model asks for.
 *
 * - **Catalog**: 50 synthetic servers × 30 tools (1,500), generated deterministically from a
 *   vocabulary of 50 real kinds of server (GitHub, Jira, Slack, Postgres, the filesystem, a
 *   calendar …): each has its own entities and verbs, its own naming style (snake_case,
 *   camelCase, kebab-case, a brand prefix as Slack's server has), descriptions phrased in one of
 *   several ways, and JSON schemas with typed, described properties as zod emits them.
 * - **Tokens**: the gateway's own tools/list answer for that catalog, full (as without the flag)
 *   and progressive (the three tools), by the estimate of decision 217 (JSON characters / 4).
 * - **Recall@3**: {@link QUERIES}, written as a user would ask — paraphrases, not copies of the
 *   descriptions — each with the one tool it wants; a hit when the tool is among the first three
 *   of `search_tools`.
 *
 *   node dist/bench/progressive.js        prints the result as JSON (no processes, under a second)
 */
import { pathToFileURL } from 'node:url';
import { gatewayView } from '../src/model/gateway/gatewayView.js';
import type { QualifiedTool } from '../src/model/report/status.js';
import { searchTools } from '../src/model/tools/toolSearch.js';
import { qualifiedToolName } from '../src/model/tools/toolNames.js';
import { estimateTokens, toolCatalog } from '../src/model/gateway/progressiveTools.js';

export interface ProgressiveQueryResult {
  /** `intents`: {@link QUERIES}, the set the ranking was tuned on; `paraphrases`: {@link PARAPHRASES}, held out. */
  set: 'intents' | 'paraphrases';
  query: string;
  expected: string;
  /** 1-based rank of the expected tool among the first ten matches; absent when not among them. */
  rank?: number;
  top3: string[];
}

export interface ProgressiveResult {
  tools: number;
  fullTokens: number;
  progressiveTokens: number;
  /** 1 − progressive / full. */
  reduction: number;
  /** Over every query of both sets. */
  recallAt3: number;
  recallAt3BySet: { intents: number; paraphrases: number };
  queries: ProgressiveQueryResult[];
}

type Style = 'snake' | 'camel' | 'kebab' | 'prefixed';

interface Domain {
  server: string;
  brand: string;
  /** Where things live, as a description says it ("a GitHub repository"), and its parameters. */
  container: string;
  scope: readonly string[];
  /** `noun:field,field` — each entity gets list, get, create, update, delete, search. */
  entities: readonly string[];
  /** Verbs of this kind of server: `key`, what it does, its parameters. */
  extras: readonly (readonly [string, string, string?])[];
  style: Style;
}

const d = (
  server: string,
  brand: string,
  container: string,
  scope: string,
  entities: string,
  extras: Domain['extras'],
  style: Style = 'snake',
): Domain => ({ server, brand, container, scope: scope === '' ? [] : scope.split(','), entities: entities.split('|'), extras, style });

/** Fifty kinds of server, as MCP catalogs have them. */
const DOMAINS: readonly Domain[] = [
  d('github', 'GitHub', 'a GitHub repository', 'owner,repo', 'issue:title,body,labels,assignees|pull request:title,head,base,body,draft|branch:name,from_branch|release:tag_name,name,notes|workflow run:workflow_id,ref', [
    ['merge_pull_request', 'Merges a pull request into its base branch with a merge commit, a squash or a rebase.', 'pull_number,merge_method'],
    ['fork_repository', 'Forks a repository into your account or into an organization you belong to.', 'organization'],
    ['create_repository', 'Creates a new repository for the authenticated user, public or private.', 'name,description,private'],
    ['search_code', 'Searches source code across all of GitHub with the code search syntax.', 'query,per_page'],
    ['get_file_contents', 'Returns the contents of a file or a directory listing at a path and ref.', 'path,ref'],
    ['create_or_update_file', 'Creates or updates a single file in a repository with a commit message.', 'path,content,message,branch'],
    ['add_issue_comment', 'Adds a comment to an issue or a pull request.', 'issue_number,body'],
    ['request_reviewers', 'Requests reviews on a pull request from users or teams.', 'pull_number,reviewers'],
  ]),
  d('gitlab', 'GitLab', 'a GitLab project', 'project_id', 'issue:title,description,labels|merge request:title,source_branch,target_branch,description|pipeline:ref,variables|branch:name,ref|tag:tag_name,ref,message', [
    ['approve_merge_request', 'Approves a merge request as the current user.', 'merge_request_iid'],
    ['retry_pipeline', 'Retries the failed jobs of a pipeline.', 'pipeline_id'],
    ['get_job_log', 'Returns the trace output of a CI job.', 'job_id'],
  ]),
  d('jira', 'Jira', 'a Jira project', 'project_key', 'issue:summary,description,issue_type,priority|sprint:name,start_date,end_date|epic:name,summary|comment:issue_key,body|board:name,type', [
    ['transition_issue', 'Moves an issue to another status of its workflow, e.g. from To Do to In Progress.', 'issue_key,transition'],
    ['assign_issue', 'Assigns an issue to a user, or unassigns it.', 'issue_key,account_id'],
    ['log_work', 'Logs time spent on an issue as a worklog entry.', 'issue_key,time_spent,comment'],
    ['run_jql', 'Runs a JQL search and returns the matching issues.', 'jql,max_results'],
  ], 'kebab'),
  d('linear', 'Linear', 'a Linear team', 'team_id', 'issue:title,description,priority,state|project:name,target_date|cycle:name,starts_at,ends_at|label:name,color|comment:issue_id,body', [
    ['set_issue_priority', 'Changes the priority of an issue (urgent, high, medium, low).', 'issue_id,priority'],
  ], 'camel'),
  d('slack', 'Slack', 'a Slack workspace', '', 'channel:name,topic,is_private|message:channel,text|user:email,display_name|reminder:text,time|file:channel,filename,title', [
    ['post_message', 'Posts a message to a channel or a direct message conversation.', 'channel,text,blocks'],
    ['add_reaction', 'Adds an emoji reaction to a message.', 'channel,timestamp,emoji'],
    ['reply_to_thread', 'Replies in the thread of a message.', 'channel,thread_ts,text'],
    ['set_status', 'Sets your status text and emoji, optionally with an expiry.', 'status_text,status_emoji,expiration'],
    ['schedule_message', 'Schedules a message to be sent to a channel at a later time.', 'channel,text,post_at'],
    ['get_channel_history', 'Returns the recent messages of a channel.', 'channel,limit'],
  ], 'prefixed'),
  d('discord', 'Discord', 'a Discord server', 'guild_id', 'channel:name,topic,type|message:channel_id,content|role:name,permissions,color|member:user_id,nick|webhook:channel_id,name', [
    ['ban_member', 'Bans a member from the server, optionally deleting their recent messages.', 'user_id,reason,delete_message_days'],
    ['send_message', 'Sends a message to a text channel.', 'channel_id,content'],
  ]),
  d('postgres', 'PostgreSQL', 'a PostgreSQL database', 'schema', 'table:name,columns|row:table,values|index:table,columns,unique|view:name,definition|role:name,login,password', [
    ['run_query', 'Executes a read-only SQL query and returns the rows as JSON.', 'sql'],
    ['explain_query', 'Shows the execution plan of a SQL statement (EXPLAIN ANALYZE).', 'sql'],
    ['list_schemas', 'Lists the schemas of the database.', ''],
    ['describe_table', 'Returns the columns, types, constraints and indexes of a table.', 'table'],
  ]),
  d('mysql', 'MySQL', 'a MySQL server', 'database', 'table:name,columns,engine|row:table,values|user:username,host,password|database:name,charset|procedure:name,body', [
    ['execute_sql', 'Executes any SQL statement, including writes, and returns affected rows.', 'sql'],
    ['show_processlist', 'Shows the threads running on the server and what each is doing.', ''],
  ]),
  d('sqlite', 'SQLite', 'a SQLite database file', 'db_path', 'table:name,columns|row:table,values|view:name,select|trigger:name,table,when|index:table,columns', [
    ['read_query', 'Runs a SELECT statement on the local database file.', 'query'],
    ['write_query', 'Runs an INSERT, UPDATE or DELETE statement on the local database file.', 'query'],
  ]),
  d('mongodb', 'MongoDB', 'a MongoDB cluster', 'database', 'collection:name,validator|document:collection,filter,document|index:collection,keys|database:name|user:username,roles', [
    ['aggregate', 'Runs an aggregation pipeline on a collection.', 'collection,pipeline'],
    ['count_documents', 'Counts the documents of a collection that match a filter.', 'collection,filter'],
  ], 'camel'),
  d('redis', 'Redis', 'a Redis instance', 'db', 'key:key,value,ttl|hash:key,fields|stream:key,entries|channel:name|sorted set:key,members', [
    ['set_key_expiry', 'Sets a time to live, in seconds, on a key.', 'key,seconds'],
    ['publish_message', 'Publishes a message on a pub/sub channel.', 'channel,message'],
    ['flush_database', 'Deletes every key of the selected database.', ''],
  ]),
  d('filesystem', 'the file system', 'the allowed directories', '', 'symlink:path,target|archive:path,format|watch:path,recursive', [
    ['read_file', 'Reads the complete contents of a file as text.', 'path'],
    ['read_multiple_files', 'Reads several files at once; a file that cannot be read does not stop the others.', 'paths'],
    ['write_file', 'Creates a file, or overwrites an existing one, with the given content.', 'path,content'],
    ['edit_file', 'Makes line-based edits to a text file and returns a git-style diff.', 'path,edits,dry_run'],
    ['create_directory', 'Creates a directory, with its parents when they are missing.', 'path'],
    ['list_directory', 'Lists the files and subdirectories of a directory.', 'path'],
    ['directory_tree', 'Returns a recursive tree of a directory as JSON.', 'path'],
    ['move_file', 'Moves or renames a file or a directory.', 'source,destination'],
    ['search_files', 'Recursively searches for files whose names match a glob pattern.', 'path,pattern,exclude_patterns'],
    ['get_file_info', 'Returns the size, timestamps and permissions of a file.', 'path'],
    ['list_allowed_directories', 'Returns the directories this server may access.', ''],
  ]),
  d('calendar', 'Google Calendar', 'a Google Calendar', 'calendar_id', 'event:summary,start,end,attendees,location|calendar:summary,time_zone|reminder:event_id,minutes|attendee:event_id,email|working location:date,type', [
    ['find_free_slots', 'Finds the times when all the given people are free.', 'emails,time_min,time_max,duration_minutes'],
    ['respond_to_invitation', 'Accepts, declines or tentatively accepts an event invitation.', 'event_id,response'],
    ['quick_add_event', 'Creates an event from a line of text such as "Lunch with Ana tomorrow at noon".', 'text'],
  ]),
  d('gmail', 'Gmail', 'a Gmail mailbox', '', 'message:to,subject,body|draft:to,subject,body|label:name,color|thread:subject|filter:from,to,query,action', [
    ['send_email', 'Sends an email to one or more recipients, with optional cc, bcc and attachments.', 'to,cc,bcc,subject,body,attachments'],
    ['reply_to_email', 'Replies to a message in its thread.', 'message_id,body,reply_all'],
    ['archive_email', 'Removes a message from the inbox without deleting it.', 'message_id'],
    ['mark_as_read', 'Marks messages as read.', 'message_ids'],
  ]),
  d('notion', 'Notion', 'a Notion workspace', '', 'page:parent_id,title,properties|database:parent_id,title,properties|block:parent_id,type,text|comment:page_id,text|user:email', [
    ['query_database', 'Queries a database with filters and sorts and returns its pages.', 'database_id,filter,sorts'],
    ['append_block_children', 'Appends content blocks to a page or a block.', 'block_id,children'],
  ], 'camel'),
  d('confluence', 'Confluence', 'a Confluence space', 'space_key', 'page:title,body,parent_id|space:key,name|attachment:page_id,filename|comment:page_id,body|label:page_id,name', [
    ['get_page_history', 'Returns the versions of a page with who changed it and when.', 'page_id'],
  ]),
  d('sentry', 'Sentry', 'a Sentry organization', 'organization_slug', 'issue:status,assigned_to|event:issue_id|project:name,platform|release:version,projects|alert rule:name,conditions,actions', [
    ['resolve_issue', 'Marks an issue as resolved, optionally in the next release.', 'issue_id,in_next_release'],
    ['get_stack_trace', 'Returns the stack trace of the latest event of an issue.', 'issue_id'],
  ]),
  d('datadog', 'Datadog', 'a Datadog account', '', 'monitor:name,query,message,thresholds|dashboard:title,widgets|metric:name,type,unit|incident:title,severity|synthetic test:name,url,locations', [
    ['query_metrics', 'Queries timeseries points of metrics over a time range.', 'query,from,to'],
    ['search_logs', 'Searches log events with the log query syntax.', 'query,from,to,limit'],
    ['mute_monitor', 'Silences a monitor until a given time.', 'monitor_id,end'],
  ]),
  d('kubernetes', 'Kubernetes', 'a Kubernetes cluster', 'namespace', 'pod:name,image,labels|deployment:name,image,replicas|service:name,type,ports|namespace:name|config map:name,data', [
    ['scale_deployment', 'Sets the number of replicas of a deployment.', 'name,replicas'],
    ['get_pod_logs', 'Returns the logs of a container of a pod.', 'name,container,tail_lines,previous'],
    ['exec_in_pod', 'Runs a command inside a container of a pod.', 'name,container,command'],
    ['rollout_restart', 'Restarts the pods of a deployment one by one.', 'name'],
    ['apply_manifest', 'Applies a YAML manifest to the cluster, creating or updating its resources.', 'manifest'],
  ], 'kebab'),
  d('docker', 'Docker', 'the Docker engine', '', 'container:name,image,ports,env|image:name,tag|volume:name,driver|network:name,driver|compose project:name,file', [
    ['run_container', 'Creates and starts a container from an image.', 'image,name,ports,env,detach'],
    ['stop_container', 'Stops a running container.', 'container_id,timeout'],
    ['pull_image', 'Pulls an image from a registry.', 'image,tag'],
    ['build_image', 'Builds an image from a Dockerfile and a build context.', 'context,dockerfile,tag'],
    ['container_logs', 'Returns the stdout and stderr output of a container.', 'container_id,tail'],
  ]),
  d('aws-s3', 'Amazon S3', 'an S3 bucket', 'bucket', 'bucket:name,region|object:key,content_type|bucket policy:policy|lifecycle rule:prefix,expiration_days|presigned url:key,expires_in', [
    ['upload_object', 'Uploads a file to a bucket under a key.', 'key,body,content_type'],
    ['download_object', 'Downloads an object and returns its content.', 'key'],
    ['copy_object', 'Copies an object to another key or bucket.', 'source_key,destination_bucket,destination_key'],
  ]),
  d('stripe', 'Stripe', 'a Stripe account', '', 'customer:email,name,metadata|payment intent:amount,currency,customer|invoice:customer,items|subscription:customer,price,trial_days|refund:payment_intent,amount', [
    ['create_checkout_session', 'Creates a hosted checkout page for a set of prices.', 'line_items,success_url,cancel_url,mode'],
    ['capture_payment', 'Captures the funds of an authorized payment intent.', 'payment_intent,amount_to_capture'],
  ]),
  d('shopify', 'Shopify', 'a Shopify store', '', 'product:title,vendor,price,variants|order:line_items,customer|customer:email,first_name,last_name|collection:title,rules|discount code:code,value,starts_at', [
    ['fulfill_order', 'Marks the line items of an order as fulfilled, with a tracking number.', 'order_id,tracking_number,carrier'],
    ['adjust_inventory', 'Adjusts the available quantity of a product variant at a location.', 'inventory_item_id,location_id,delta'],
  ], 'camel'),
  d('salesforce', 'Salesforce', 'a Salesforce org', '', 'account:name,industry|contact:first_name,last_name,email|opportunity:name,stage,amount,close_date|lead:company,last_name,email|case:subject,priority,status', [
    ['run_soql', 'Runs a SOQL query and returns the records.', 'soql'],
    ['convert_lead', 'Converts a lead into an account, a contact and optionally an opportunity.', 'lead_id,create_opportunity'],
  ]),
  d('hubspot', 'HubSpot', 'a HubSpot portal', '', 'contact:email,firstname,lastname|company:name,domain|deal:dealname,amount,dealstage|ticket:subject,content,priority|note:body,associations', [
    ['associate_records', 'Links two CRM records, e.g. a contact with a company.', 'from_type,from_id,to_type,to_id'],
  ]),
  d('zendesk', 'Zendesk', 'a Zendesk help desk', '', 'ticket:subject,comment,priority,requester|user:name,email,role|organization:name,domain_names|macro:title,actions|article:title,body,section_id', [
    ['apply_macro', 'Applies a macro to a ticket and returns the changes it makes.', 'ticket_id,macro_id'],
    ['add_internal_note', 'Adds a private comment to a ticket that the requester does not see.', 'ticket_id,body'],
  ]),
  d('twilio', 'Twilio', 'a Twilio account', '', 'message:to,from,body|call:to,from,url|phone number:area_code,friendly_name|verification:to,channel|conversation:friendly_name', [
    ['send_sms', 'Sends a text message to a phone number.', 'to,body'],
    ['make_call', 'Places an outbound voice call that plays a message.', 'to,twiml'],
    ['check_verification_code', 'Checks a one-time code that a user received.', 'to,code'],
  ]),
  d('spotify', 'Spotify', "the user's Spotify library", '', 'playlist:name,description,public|track:uri|album:id|artist:id|queue:uri', [
    ['play', 'Starts or resumes playback on the active device.', 'context_uri,device_id'],
    ['pause', 'Pauses playback.', 'device_id'],
    ['skip_to_next', 'Skips to the next track.', 'device_id'],
    ['add_to_queue', 'Adds a track to the end of the playback queue.', 'uri'],
    ['search_catalog', 'Searches the catalog for tracks, albums, artists or playlists.', 'query,type,limit'],
  ], 'camel'),
  d('weather', 'the weather service', 'a location', 'latitude,longitude', 'forecast:days|alert:area|observation:station_id|station:state|air quality:pollutant', [
    ['get_current_weather', 'Returns the current temperature, wind and conditions at a place.', 'units'],
    ['get_hourly_forecast', 'Returns the forecast hour by hour for the next two days.', 'hours'],
  ]),
  d('maps', 'Google Maps', 'Google Maps', '', 'place:name,address|route:origin,destination|saved list:name|review:place_id,rating|photo:place_id', [
    ['geocode_address', 'Converts a street address into latitude and longitude.', 'address'],
    ['reverse_geocode', 'Converts coordinates into a street address.', 'latitude,longitude'],
    ['get_directions', 'Returns directions between two places by car, transit, bicycle or on foot.', 'origin,destination,mode'],
    ['search_nearby', 'Finds places of a kind near a location, such as cafes or pharmacies.', 'location,radius,keyword'],
    ['distance_matrix', 'Returns travel times and distances between several origins and destinations.', 'origins,destinations,mode'],
  ]),
  d('browser', 'the browser', 'a browser page', '', 'tab:url|cookie:name,value,domain|download:url|dialog:accept|console message:level', [
    ['navigate', 'Opens a URL in the current tab.', 'url'],
    ['click', 'Clicks an element of the page found by a CSS selector.', 'selector'],
    ['fill_form', 'Types values into form fields.', 'fields'],
    ['take_screenshot', 'Captures a PNG of the page or of one element.', 'selector,full_page'],
    ['evaluate_script', 'Runs JavaScript in the page and returns its result.', 'script'],
    ['wait_for_selector', 'Waits until an element appears on the page.', 'selector,timeout'],
    ['press_key', 'Presses a keyboard key, such as Enter or ArrowDown.', 'key'],
    ['get_page_text', 'Returns the visible text of the page.', ''],
  ], 'prefixed'),
  d('fetch', 'the web', 'the web', '', 'header:name,value|cookie jar:name|proxy:url|cache entry:url|redirect rule:from,to', [
    ['fetch_url', 'Fetches a URL and returns its body as text.', 'url,max_length'],
    ['fetch_markdown', 'Fetches a web page and converts its HTML to Markdown.', 'url'],
    ['fetch_json', 'Fetches a URL and parses the answer as JSON.', 'url,headers'],
    ['post_form', 'Sends form data to a URL with an HTTP POST.', 'url,fields'],
  ]),
  d('brave-search', 'Brave Search', 'the web index', '', 'news result:query|image result:query|video result:query|local business:query,location|suggestion:query', [
    ['web_search', 'Searches the web and returns titles, URLs and snippets.', 'query,count,offset'],
    ['summarize_results', 'Summarises the top results of a search with their sources.', 'query'],
  ]),
  d('memory', 'the knowledge graph', 'the knowledge graph', '', 'entity:name,entity_type,observations|relation:from,to,relation_type|observation:entity_name,contents', [
    ['read_graph', 'Returns the whole knowledge graph.', ''],
    ['search_nodes', 'Finds nodes whose names, types or observations match a query.', 'query'],
    ['open_nodes', 'Returns the given nodes and the relations between them.', 'names'],
  ]),
  d('git', 'Git', 'a local Git repository', 'repo_path', 'commit:message|branch:name,start_point|tag:name,message|stash:message|remote:name,url', [
    ['status', 'Shows the working tree status: staged, unstaged and untracked files.', ''],
    ['diff', 'Shows the changes between the working tree and the index or a commit.', 'target,staged'],
    ['log', 'Shows the commit history of the current branch.', 'max_count'],
    ['add', 'Stages file contents for the next commit.', 'files'],
    ['checkout', 'Switches to a branch or restores files.', 'target'],
    ['reset', 'Unstages all staged changes.', ''],
  ], 'prefixed'),
  d('npm', 'npm', 'the npm registry', '', 'package:name|version:name,version|dependency:name,version,dev|audit advisory:severity|dist tag:name,tag,version', [
    ['install_package', 'Installs a package into the project and records it in package.json.', 'name,version,dev'],
    ['publish_package', 'Publishes the package in a directory to the registry.', 'directory,tag,access'],
    ['run_script', 'Runs a script defined in package.json.', 'script,args'],
  ]),
  d('pypi', 'PyPI', 'the Python Package Index', '', 'package:name|release:name,version|classifier:name|maintainer:username|download stat:name,period', [
    ['get_package_readme', "Returns a package's long description as published.", 'name'],
  ]),
  d('figma', 'Figma', 'a Figma file', 'file_key', 'frame:name,node_id|component:name,key|comment:message,node_id|style:name,type|version:label', [
    ['export_image', 'Renders nodes as PNG, JPG, SVG or PDF and returns the image URLs.', 'ids,format,scale'],
    ['get_design_tokens', 'Extracts the colors, typography and spacing variables of a file.', ''],
  ], 'camel'),
  d('trello', 'Trello', 'a Trello board', 'board_id', 'board:name,description|list:name,position|card:name,description,due,list_id|checklist:card_id,name|member:username', [
    ['move_card', 'Moves a card to another list or board.', 'card_id,list_id,position'],
    ['archive_card', 'Archives a card so it leaves the board.', 'card_id'],
  ]),
  d('asana', 'Asana', 'an Asana workspace', 'workspace_gid', 'task:name,notes,assignee,due_on|project:name,team|section:name,project_gid|tag:name,color|portfolio:name', [
    ['complete_task', 'Marks a task as complete.', 'task_gid'],
    ['add_subtask', 'Creates a subtask under a task.', 'parent_gid,name,assignee'],
  ]),
  d('dropbox', 'Dropbox', 'a Dropbox account', '', 'file:path|folder:path|shared link:path,expires|revision:path|team member:email', [
    ['upload_file', 'Uploads a file to a path in Dropbox.', 'path,content,mode'],
    ['download_file', 'Downloads a file from Dropbox.', 'path'],
  ]),
  d('google-drive', 'Google Drive', 'a Google Drive', '', 'file:name,mime_type,parents|folder:name,parent_id|permission:file_id,email,role|comment:file_id,content|revision:file_id', [
    ['share_file', 'Shares a file with a person or a group as a viewer, commenter or editor.', 'file_id,email,role'],
    ['export_document', 'Exports a Google Doc, Sheet or Slides file to PDF, DOCX, XLSX or CSV.', 'file_id,mime_type'],
  ], 'kebab'),
  d('youtube', 'YouTube', 'a YouTube channel', '', 'video:title,description,privacy_status|playlist:title,privacy_status|channel:id|comment:video_id,text|caption:video_id,language', [
    ['upload_video', 'Uploads a video file with a title and a description.', 'file,title,description,privacy_status'],
    ['get_transcript', 'Returns the transcript of a video with timestamps.', 'video_id,language'],
  ]),
  d('airtable', 'Airtable', 'an Airtable base', 'base_id', 'record:table,fields|table:name,fields|field:table,name,type|view:table,name|webhook:notification_url', [
    ['upsert_records', 'Updates records that match on given fields and creates the others.', 'table,records,fields_to_merge_on'],
  ]),
  d('snowflake', 'Snowflake', 'a Snowflake account', 'database,schema', 'warehouse:name,size|table:name,columns|stage:name,url|role:name|task:name,schedule,sql', [
    ['execute_query', 'Runs a SQL statement on a warehouse and returns the result set.', 'sql,warehouse'],
    ['load_data_from_stage', 'Copies staged files into a table (COPY INTO).', 'table,stage,file_format'],
  ]),
  d('bigquery', 'BigQuery', 'a Google Cloud project', 'project_id', 'dataset:dataset_id,location|table:dataset_id,table_id,schema|job:job_id|routine:dataset_id,routine_id|view:dataset_id,query', [
    ['run_query', 'Runs a GoogleSQL query and returns the rows.', 'query,max_results'],
    ['estimate_query_cost', 'Dry-runs a query and returns how many bytes it would process.', 'query'],
  ]),
  d('elasticsearch', 'Elasticsearch', 'an Elasticsearch cluster', '', 'index:name,settings,mappings|document:index,id,body|alias:index,name|snapshot:repository,name|ingest pipeline:id,processors', [
    ['search_documents', 'Runs a query DSL search on an index and returns the hits.', 'index,query,size'],
    ['bulk_index', 'Indexes many documents in one request.', 'index,documents'],
    ['cluster_health', 'Returns the health status of the cluster and its shards.', ''],
  ]),
  d('grafana', 'Grafana', 'a Grafana instance', '', 'dashboard:title,panels|panel:dashboard_uid,title,type|data source:name,type,url|alert rule:title,condition|folder:title', [
    ['query_prometheus', 'Runs a PromQL query against a Prometheus data source.', 'datasource_uid,expr,start,end'],
    ['render_panel', 'Renders a dashboard panel to a PNG image.', 'dashboard_uid,panel_id,width,height'],
  ]),
  d('pagerduty', 'PagerDuty', 'a PagerDuty account', '', 'incident:title,service_id,urgency|service:name,escalation_policy_id|schedule:name,time_zone|escalation policy:name,rules|maintenance window:services,start_time,end_time', [
    ['acknowledge_incident', 'Acknowledges an incident so escalation stops.', 'incident_id'],
    ['resolve_incident', 'Resolves an incident.', 'incident_id,resolution'],
    ['list_on_calls', 'Lists who is on call now for each escalation policy.', 'escalation_policy_ids'],
  ]),
  d('cloudflare', 'Cloudflare', 'a Cloudflare zone', 'zone_id', 'zone:name|dns record:type,name,content,ttl,proxied|worker:name,script|kv namespace:title|firewall rule:expression,action', [
    ['purge_cache', 'Purges cached files of a zone, everything or by URL.', 'files,purge_everything'],
    ['deploy_worker', 'Uploads and deploys a Worker script.', 'name,script,routes'],
  ]),
];

const ACTIONS = ['list', 'get', 'create', 'update', 'delete', 'search'] as const;
type Action = (typeof ACTIONS)[number];

/** Ways descriptions say each action, picked per tool by a seeded generator. */
const PHRASES: Record<Action, readonly string[]> = {
  list: ['Lists the {plural} of {container}.', 'Returns the {plural} in {container}, newest first, a page at a time.', 'Get a paginated list of {plural} for {container}.'],
  get: ['Gets one {noun} by its ID.', 'Retrieves the details of a single {noun}.', 'Fetch a {noun} and all its fields.'],
  create: ['Creates a new {noun} in {container}.', 'Create a {noun}.', 'Adds a {noun} to {container}.'],
  update: ['Updates an existing {noun}.', 'Modifies the fields of a {noun}; fields not given keep their values.', 'Edit a {noun}.'],
  delete: ['Deletes a {noun}. This cannot be undone.', 'Removes a {noun} from {container}.', 'Permanently delete a {noun}.'],
  search: ['Searches {plural} by keyword.', 'Full-text search over the {plural} of {container}.', 'Find {plural} that match a query.'],
};

/** A small seeded generator (mulberry32): the same catalog on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pluralOf(noun: string): string {
  if (/(s|x|ch|sh)$/.test(noun)) return `${noun}es`;
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}

function styled(key: string, style: Style, server: string): string {
  const words = key.split('_');
  switch (style) {
    case 'snake':
      return key;
    case 'kebab':
      return words.join('-');
    case 'camel':
      return words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
    case 'prefixed':
      return `${server.replace(/-/g, '_')}_${key}`;
  }
}

/** The JSON schema of one parameter, as zod would emit it, from its name. */
function property(name: string, noun: string): Record<string, unknown> {
  const words = name.replace(/_/g, ' ');
  if (/(^|_)(ids|names|emails|labels|assignees|reviewers|paths|files|attendees|members|items|records|documents|columns|keys|origins|destinations|services|fields|edits|line_items|message_ids|children|projects|roles|variants|panels|widgets|rules|processors|actions|conditions|observations|entries|values|routes|exclude_patterns|pipeline|sorts|locations|thresholds|associations|args)$/.test(name)) {
    return { type: 'array', items: { type: 'string' }, description: `The ${words}.` };
  }
  if (/(^|_)(limit|count|per_page|max_results|max_count|replicas|size|minutes|seconds|days|hours|ttl|amount|delta|width|height|radius|timeout|tail|tail_lines|position|priority|offset|scale|expires_in|expiration_days|trial_days|delete_message_days|duration_minutes|rating|max_length|amount_to_capture|panel_id|number|pull_number|issue_number)$/.test(name)) {
    return { type: 'integer', minimum: 0, description: `The ${words}.` };
  }
  if (/^(is_|dry_run|draft|private|public|unique|dev|detach|proxied|staged|previous|full_page|reply_all|login|accept|recursive|create_opportunity|in_next_release|purge_everything)/.test(name)) {
    return { type: 'boolean', default: false, description: `Whether ${words}.` };
  }
  if (/(^|_)(start|end|due|due_on|date|at|time|start_date|end_date|starts_at|ends_at|close_date|time_min|time_max|from|to|post_at|start_time|end_time|target_date)$/.test(name) && !/^(to|from)$/.test(name)) {
    return { type: 'string', format: 'date-time', description: `The ${words}, ISO 8601.` };
  }
  if (name === 'state' || name === 'status') return { type: 'string', enum: ['open', 'closed', 'all'], description: `The ${noun}'s ${words}.` };
  if (/(^|_)(filter|query|body|document|properties|metadata|settings|mappings|variables|env|ports|data|schema|value|fields_to_merge_on|headers)$/.test(name) && name !== 'query') {
    return { type: 'object', additionalProperties: true, description: `The ${words} of the ${noun}.` };
  }
  return { type: 'string', description: `The ${words}${name.endsWith('id') || name.endsWith('key') ? '' : ` of the ${noun}`}.` };
}

function schema(params: readonly string[], noun: string, required: readonly string[]): Record<string, unknown> {
  const properties = Object.fromEntries(params.map((p) => [p, property(p, noun)]));
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties,
    required: required.filter((r) => params.includes(r)),
    additionalProperties: false,
  };
}

interface SyntheticTool {
  server: string;
  /** `action_entity` or the extra's key: what the queries name. */
  key: string;
  tool: QualifiedTool;
}

/** The catalog: 50 servers × 30 tools, the same on every run. */
export function syntheticCatalog(): SyntheticTool[] {
  const out: SyntheticTool[] = [];
  DOMAINS.forEach((domain, di) => {
    const random = seeded(di + 1);
    const specs: { key: string; description: string; params: string[]; required: string[]; noun: string }[] = [];
    for (const [key, description, params = ''] of domain.extras) {
      const own = params === '' ? [] : params.split(',');
      specs.push({ key, description, params: [...domain.scope, ...own], required: [...domain.scope, ...own.slice(0, 1)], noun: key.split('_').at(-1)! });
    }
    const entities = domain.entities.map((e) => {
      const [noun, fields = ''] = e.split(':') as [string, string?];
      return { noun, fields: fields === '' ? [] : fields.split(',') };
    });
    for (const action of ACTIONS) {
      for (const { noun, fields } of entities) {
        if (specs.length >= 30) break;
        const plural = pluralOf(noun);
        const snake = (action === 'list' || action === 'search' ? plural : noun).replace(/ /g, '_');
        const key = `${action}_${snake}`;
        if (specs.some((s) => s.key === key)) continue;
        const phrases = PHRASES[action];
        let description = phrases[Math.floor(random() * phrases.length)]!
          .replaceAll('{plural}', plural)
          .replaceAll('{noun}', noun)
          .replaceAll('{container}', domain.container);
        description = description[0]!.toUpperCase() + description.slice(1);
        const id = `${noun.replace(/ /g, '_')}_id`;
        let params: string[];
        let required: string[];
        switch (action) {
          case 'list':
            params = [...domain.scope, ...fields.slice(-1), 'per_page', 'cursor'];
            required = [...domain.scope];
            if (random() < 0.5) description += ` Supports filtering by ${fields.slice(-1)[0]?.replace(/_/g, ' ') ?? 'date'} and pagination.`;
            break;
          case 'get':
            params = [...domain.scope, id];
            required = params;
            break;
          case 'create':
            params = [...domain.scope, ...fields];
            required = [...domain.scope, ...fields.slice(0, 1)];
            if (fields.length > 1 && random() < 0.6) description += ` Takes ${fields.map((f) => f.replace(/_/g, ' ')).join(', ')}.`;
            break;
          case 'update':
            params = [...domain.scope, id, ...fields];
            required = [...domain.scope, id];
            break;
          case 'delete':
            params = [...domain.scope, id];
            required = params;
            break;
          case 'search':
            params = [...domain.scope, 'query', 'limit'];
            required = [...domain.scope, 'query'];
            break;
        }
        specs.push({ key, description, params, required, noun });
      }
    }
    if (specs.length < 30) {
      // A server with few entities gets the usual admin verbs, as real ones have.
      for (const extra of ['get_account_info', 'list_permissions', 'get_usage_stats', 'validate_credentials', 'list_webhooks', 'get_rate_limit', 'export_audit_log', 'list_api_keys', 'get_settings', 'update_settings']) {
        if (specs.length >= 30) break;
        const words = extra.split('_').slice(1).join(' ');
        specs.push({ key: extra, description: `Returns the ${words} of ${domain.brand}.`.replace('Returns the settings', 'Reads the settings'), params: [], required: [], noun: words });
      }
    }
    for (const spec of specs.slice(0, 30)) {
      const own = styled(spec.key, domain.style, domain.server);
      out.push({
        server: domain.server,
        key: spec.key,
        tool: {
          name: qualifiedToolName(domain.server, own),
          server: domain.server,
          tool: own,
          trust: false,
          description: spec.description,
          inputSchema: schema(spec.params, spec.noun, spec.required),
        },
      });
    }
  });
  return out;
}

/**
 * What a user asks, and the tool meant: paraphrases in a user's words (the queries name the
 * product where a person would, as "in Jira"), written from what each tool is for, not from its
 * description's wording.
 */
export const QUERIES: readonly (readonly [string, string, string])[] = [
  ['show me the open pull requests of a github repo', 'github', 'list_pull_requests'],
  ['file a bug in github about the broken login page', 'github', 'create_issue'],
  ['squash and merge a PR on GitHub', 'github', 'merge_pull_request'],
  ['read a file from a github repository', 'github', 'get_file_contents'],
  ['leave a comment on a github issue', 'github', 'add_issue_comment'],
  ['ask teammates to review my pull request', 'github', 'request_reviewers'],
  ['make a copy of someone else\'s repo under my github account', 'github', 'fork_repository'],
  ['look for a function name in code on github', 'github', 'search_code'],
  ['approve a gitlab merge request', 'gitlab', 'approve_merge_request'],
  ['rerun the failed gitlab CI pipeline', 'gitlab', 'retry_pipeline'],
  ['see the output log of a CI job in gitlab', 'gitlab', 'get_job_log'],
  ['open a new merge request in gitlab', 'gitlab', 'create_merge_request'],
  ['move a jira ticket to in progress', 'jira', 'transition_issue'],
  ['record two hours of time spent on a jira issue', 'jira', 'log_work'],
  ['find jira issues with a JQL expression', 'jira', 'run_jql'],
  ['start a new sprint in jira', 'jira', 'create_sprint'],
  ['make an issue urgent in linear', 'linear', 'set_issue_priority'],
  ['send a message to the #general channel on slack', 'slack', 'post_message'],
  ['react with a thumbs up emoji to a slack message', 'slack', 'add_reaction'],
  ['answer in the thread of a slack message', 'slack', 'reply_to_thread'],
  ['set my slack status to "in a meeting"', 'slack', 'set_status'],
  ['post a slack message tomorrow morning at 9', 'slack', 'schedule_message'],
  ['what was said recently in a slack channel', 'slack', 'get_channel_history'],
  ['kick and ban a user from a discord server', 'discord', 'ban_member'],
  ['run a SELECT against the postgres database', 'postgres', 'run_query'],
  ['why is this postgres query slow, show the plan', 'postgres', 'explain_query'],
  ['which columns does the orders table have in postgres', 'postgres', 'describe_table'],
  ['see what queries are running right now on mysql', 'mysql', 'show_processlist'],
  ['insert rows into a local sqlite database', 'sqlite', 'write_query'],
  ['group and sum documents in a mongodb collection with a pipeline', 'mongodb', 'aggregate'],
  ['how many documents in mongodb match this filter', 'mongodb', 'count_documents'],
  ['make a redis key expire after an hour', 'redis', 'set_key_expiry'],
  ['publish an event on a redis pub/sub channel', 'redis', 'publish_message'],
  ['show me what is inside config.yaml on disk', 'filesystem', 'read_file'],
  ['save this text to a new file', 'filesystem', 'write_file'],
  ['rename a file on disk', 'filesystem', 'move_file'],
  ['what files are in this folder', 'filesystem', 'list_directory'],
  ['find all files named *.test.ts under src', 'filesystem', 'search_files'],
  ['make a new folder with its parent folders', 'filesystem', 'create_directory'],
  ['when are Ana and Bruno both free next week', 'calendar', 'find_free_slots'],
  ['accept the meeting invitation for Friday', 'calendar', 'respond_to_invitation'],
  ['schedule a calendar event with attendees and a location', 'calendar', 'create_event'],
  ['email the quarterly report to my boss', 'gmail', 'send_email'],
  ['answer the last email from Carla', 'gmail', 'reply_to_email'],
  ['get this email out of my inbox without deleting it', 'gmail', 'archive_email'],
  ['filter rows of a notion database by status', 'notion', 'query_database'],
  ['add paragraphs to the end of a notion page', 'notion', 'append_block_children'],
  ['who edited this confluence page and when', 'confluence', 'get_page_history'],
  ['mark the sentry error as fixed', 'sentry', 'resolve_issue'],
  ['get the stacktrace of a sentry crash', 'sentry', 'get_stack_trace'],
  ['silence a noisy datadog monitor until tomorrow', 'datadog', 'mute_monitor'],
  ['search datadog logs for errors from the checkout service', 'datadog', 'search_logs'],
  ['scale the api deployment to 5 replicas in kubernetes', 'kubernetes', 'scale_deployment'],
  ['tail the logs of a crashing kubernetes pod', 'kubernetes', 'get_pod_logs'],
  ['run a shell command inside a running pod', 'kubernetes', 'exec_in_pod'],
  ['restart all pods of a deployment', 'kubernetes', 'rollout_restart'],
  ['start an nginx container with port 8080 exposed', 'docker', 'run_container'],
  ['build a docker image from the Dockerfile in this directory', 'docker', 'build_image'],
  ['what did my docker container print', 'docker', 'container_logs'],
  ['put a file into an s3 bucket', 'aws-s3', 'upload_object'],
  ['give me a temporary download link for an s3 object', 'aws-s3', 'create_presigned_url'],
  ['refund a customer payment in stripe', 'stripe', 'create_refund'],
  ['make a stripe checkout page for two products', 'stripe', 'create_checkout_session'],
  ['start a monthly stripe subscription for a customer', 'stripe', 'create_subscription'],
  ['ship a shopify order and add the tracking number', 'shopify', 'fulfill_order'],
  ['change the stock count of a product in shopify', 'shopify', 'adjust_inventory'],
  ['create a shopify discount code for 20% off', 'shopify', 'create_discount_code'],
  ['turn a salesforce lead into a contact and an account', 'salesforce', 'convert_lead'],
  ['query salesforce records with SOQL', 'salesforce', 'run_soql'],
  ['link a hubspot contact to a company', 'hubspot', 'associate_records'],
  ['add a private note on a zendesk ticket the customer cannot see', 'zendesk', 'add_internal_note'],
  ['text a phone number with twilio', 'twilio', 'send_sms'],
  ['verify the one-time code the user typed in', 'twilio', 'check_verification_code'],
  ['skip this song on spotify', 'spotify', 'skip_to_next'],
  ['queue up a track to play next on spotify', 'spotify', 'add_to_queue'],
  ['is it raining in Lisbon right now', 'weather', 'get_current_weather'],
  ['what is the latitude and longitude of 10 Downing Street', 'maps', 'geocode_address'],
  ['how do I get from the airport to the hotel by transit', 'maps', 'get_directions'],
  ['coffee shops near me', 'maps', 'search_nearby'],
  ['open example.com in the browser', 'browser', 'navigate'],
  ['take a screenshot of the web page', 'browser', 'take_screenshot'],
  ['run some javascript in the open web page', 'browser', 'evaluate_script'],
  ['download a web page as markdown', 'fetch', 'fetch_markdown'],
  ['search the internet for the latest node.js release', 'brave-search', 'web_search'],
  ['remember that Ana prefers tea: add it to the knowledge graph', 'memory', 'create_observation'],
  ['what changed in my working tree, git status', 'git', 'status'],
  ['stage these files for a commit', 'git', 'add'],
  ['show the recent git commit history', 'git', 'log'],
  ['add lodash as a dev dependency with npm', 'npm', 'install_package'],
  ['run the build script from package.json', 'npm', 'run_script'],
  ['export a figma frame as a png image', 'figma', 'export_image'],
  ['move a trello card to the done list', 'trello', 'move_card'],
  ['mark an asana task as done', 'asana', 'complete_task'],
  ['share a google drive file with a colleague as editor', 'google-drive', 'share_file'],
  ['convert a google doc to pdf', 'google-drive', 'export_document'],
  ['get the captions transcript of a youtube video', 'youtube', 'get_transcript'],
  ['update airtable rows or insert them when missing', 'airtable', 'upsert_records'],
  ['how many bytes would this bigquery query scan', 'bigquery', 'estimate_query_cost'],
  ['copy staged csv files into a snowflake table', 'snowflake', 'load_data_from_stage'],
  ['is the elasticsearch cluster green', 'elasticsearch', 'cluster_health'],
  ['index many documents into elasticsearch in one request', 'elasticsearch', 'bulk_index'],
  ['run a promql query in grafana', 'grafana', 'query_prometheus'],
  ['acknowledge the pagerduty incident', 'pagerduty', 'acknowledge_incident'],
  ['who is on call right now in pagerduty', 'pagerduty', 'list_on_calls'],
  ['clear the cloudflare cache for my site', 'cloudflare', 'purge_cache'],
  ['add a DNS record in cloudflare pointing to my server', 'cloudflare', 'create_dns_record'],
];

/**
 * The second set, written after the ranking (weights, related words) was frozen on {@link QUERIES}
 * and measured once, untouched since: paraphrases of the tools' descriptions, as the brief of the
 * measurement defines them — closer to the catalog's words than the first set, so an easier test.
 */
export const PARAPHRASES: readonly (readonly [string, string, string])[] = [
  ['set up a brand-new private github repository', 'github', 'create_repository'],
  ['write or overwrite one file in a github repo with a commit message', 'github', 'create_or_update_file'],
  ['get the CI trace output of a gitlab job', 'gitlab', 'get_job_log'],
  ['cut a new tag in a gitlab project', 'gitlab', 'create_tag'],
  ['assign a jira issue to someone', 'jira', 'assign_issue'],
  ['add a comment to a jira issue', 'jira', 'create_comment'],
  ['create a cycle for a linear team', 'linear', 'create_cycle'],
  ['new linear project with a target date', 'linear', 'create_project'],
  ['set a slack reminder', 'slack', 'create_reminder'],
  ['add a file to a slack workspace', 'slack', 'create_file'],
  ['post a message in a discord text channel', 'discord', 'send_message'],
  ['give a discord role new permissions', 'discord', 'update_role'],
  ['show the execution plan for a SQL statement on postgres', 'postgres', 'explain_query'],
  ['which schemas exist in the postgres database', 'postgres', 'list_schemas'],
  ['execute a write statement against mysql and get the affected row count', 'mysql', 'execute_sql'],
  ['run a select on a local sqlite file', 'sqlite', 'read_query'],
  ['create a mongodb index on a collection', 'mongodb', 'create_index'],
  ['wipe every key from the selected redis database', 'redis', 'flush_database'],
  ['read several files in one go', 'filesystem', 'read_multiple_files'],
  ['apply line edits to a text file and show the diff', 'filesystem', 'edit_file'],
  ['recursive directory tree as json', 'filesystem', 'directory_tree'],
  ['size and modification time of a file', 'filesystem', 'get_file_info'],
  ['which directories is the filesystem server allowed to access', 'filesystem', 'list_allowed_directories'],
  ['add a calendar event from a sentence like "dinner friday at 8"', 'calendar', 'quick_add_event'],
  ['delete an event from google calendar', 'calendar', 'delete_event'],
  ['mark these gmail messages as read', 'gmail', 'mark_as_read'],
  ['write a draft email in gmail', 'gmail', 'create_draft'],
  ['create a gmail label', 'gmail', 'create_label'],
  ['query a notion database with a filter and sort order', 'notion', 'query_database'],
  ['create a page in notion', 'notion', 'create_page'],
  ['attach a file to a confluence page', 'confluence', 'create_attachment'],
  ['resolve a sentry issue in the next release', 'sentry', 'resolve_issue'],
  ['set up a sentry alert rule', 'sentry', 'create_alert_rule'],
  ['query datadog metric timeseries over the last hour', 'datadog', 'query_metrics'],
  ['create a datadog monitor with thresholds', 'datadog', 'create_monitor'],
  ['apply a yaml manifest to the kubernetes cluster', 'kubernetes', 'apply_manifest'],
  ['delete a kubernetes namespace', 'kubernetes', 'delete_namespace'],
  ['pull an image from the docker registry', 'docker', 'pull_image'],
  ['stop a running docker container', 'docker', 'stop_container'],
  ['copy an object to another s3 bucket', 'aws-s3', 'copy_object'],
  ['download an object from s3', 'aws-s3', 'download_object'],
  ['capture an authorized stripe payment', 'stripe', 'capture_payment'],
  ['create a stripe customer with an email', 'stripe', 'create_customer'],
  ['list the orders of my shopify store', 'shopify', 'list_orders'],
  ['create a salesforce opportunity with amount and close date', 'salesforce', 'create_opportunity'],
  ['create a deal in hubspot', 'hubspot', 'create_deal'],
  ['apply a zendesk macro to a ticket', 'zendesk', 'apply_macro'],
  ['place an outbound voice call with twilio', 'twilio', 'make_call'],
  ['pause the music on spotify', 'spotify', 'pause'],
  ['create a spotify playlist', 'spotify', 'create_playlist'],
  ['hour by hour weather forecast for the next two days', 'weather', 'get_hourly_forecast'],
  ['turn coordinates into a street address', 'maps', 'reverse_geocode'],
  ['travel times between several origins and destinations', 'maps', 'distance_matrix'],
  ['click a button on the page by css selector', 'browser', 'click'],
  ['wait until an element shows up on the page', 'browser', 'wait_for_selector'],
  ['press the Enter key in the browser', 'browser', 'press_key'],
  ['fetch a url and parse the response as json', 'fetch', 'fetch_json'],
  ['summarise the top search results with sources', 'brave-search', 'summarize_results'],
  ['find nodes in the knowledge graph matching a name', 'memory', 'search_nodes'],
  ['show the diff of my staged changes in git', 'git', 'diff'],
  ['switch to another git branch', 'git', 'checkout'],
  ['publish my package to the npm registry', 'npm', 'publish_package'],
  ['get the readme of a pypi package', 'pypi', 'get_package_readme'],
  ['extract design tokens (colors, typography) from a figma file', 'figma', 'get_design_tokens'],
  ['archive a trello card', 'trello', 'archive_card'],
  ['add a subtask to an asana task', 'asana', 'add_subtask'],
  ['upload a file to dropbox', 'dropbox', 'upload_file'],
  ['upload a video to youtube with a title', 'youtube', 'upload_video'],
  ['run a googlesql query in bigquery', 'bigquery', 'run_query'],
  ['run a sql statement on a snowflake warehouse', 'snowflake', 'execute_query'],
  ['search an elasticsearch index with query dsl', 'elasticsearch', 'search_documents'],
  ['render a grafana panel as a png', 'grafana', 'render_panel'],
  ['resolve a pagerduty incident', 'pagerduty', 'resolve_incident'],
  ['deploy a cloudflare worker script', 'cloudflare', 'deploy_worker'],
  ['create a kv namespace in cloudflare', 'cloudflare', 'create_kv_namespace'],
];

/** Runs the measurement; pure computation, no processes. */
export async function runProgressiveBench(): Promise<ProgressiveResult> {
  await Promise.resolve();
  const catalog = syntheticCatalog();
  const tools = catalog.map((t) => t.tool);
  const view = gatewayView({ tools, prompts: [], resources: [], resourceTemplates: [] }, 'qualified');
  const full = toolCatalog(view, tools, undefined);
  const progressive = toolCatalog(view, tools, 'always');
  const fullTokens = estimateTokens({ tools: full.listed });
  const progressiveTokens = estimateTokens({ tools: progressive.listed });
  const byKey = new Map(catalog.map((t) => [`${t.server}/${t.key}`, t.tool.name]));
  const measure = (set: ProgressiveQueryResult['set']) => ([query, server, key]: readonly [string, string, string]): ProgressiveQueryResult => {
    const expected = byKey.get(`${server}/${key}`);
    if (expected === undefined) throw new Error(`the catalog has no ${server} tool ${key} (query "${query}")`);
    const found = searchTools(progressive.searchable, query, { limit: 10 }).map((m) => m.name);
    const at = found.indexOf(expected);
    return { set, query, expected, ...(at < 0 ? {} : { rank: at + 1 }), top3: found.slice(0, 3) };
  };
  const queries = [...QUERIES.map(measure('intents')), ...PARAPHRASES.map(measure('paraphrases'))];
  const recall = (of: readonly ProgressiveQueryResult[]): number => of.filter((q) => q.rank !== undefined && q.rank <= 3).length / of.length;
  return {
    tools: tools.length,
    fullTokens,
    progressiveTokens,
    reduction: 1 - progressiveTokens / fullTokens,
    recallAt3: recall(queries),
    recallAt3BySet: {
      intents: recall(queries.filter((q) => q.set === 'intents')),
      paraphrases: recall(queries.filter((q) => q.set === 'paraphrases')),
    },
    queries,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runProgressiveBench();
  const misses = result.queries.filter((q) => q.rank === undefined || q.rank > 3);
  console.log(JSON.stringify({ ...result, queries: result.queries.length, misses }, null, 2));
}
